/**
 * Messages on the virtual network: each send with its fate (delivered, dropped, held behind a
 * clogged link, or still in flight when the trace ends). The network numbers its sends (`id`), so
 * a delivery is tied to its send exactly; traces without ids are paired first-in first-out per
 * (from, to, protocol, code).
 */
import type { TraceLine, TraceLineOf } from '../trace-events.ts';

/** Names of the QBFT (istanbul/100) and eth/68 message codes. */
const QBFT_NAMES: Record<number, string> = { 0x12: 'PROPOSAL', 0x13: 'PREPARE', 0x14: 'COMMIT', 0x15: 'ROUND_CHANGE' };
const ETH_NAMES: Record<number, string> = {
  0x00: 'Status',
  0x01: 'NewBlockHashes',
  0x02: 'Transactions',
  0x03: 'GetBlockHeaders',
  0x04: 'BlockHeaders',
  0x05: 'GetBlockBodies',
  0x06: 'BlockBodies',
  0x07: 'NewBlock',
  0x08: 'NewPooledTransactionHashes',
  0x09: 'GetPooledTransactions',
  0x0a: 'PooledTransactions',
};

export function messageTypeName(protocol: string, code: number): string {
  if (protocol === 'istanbul') return QBFT_NAMES[code] ?? `istanbul:${code}`;
  if (protocol === 'eth') return ETH_NAMES[code] ?? `eth:${code}`;
  return `${protocol}:${code}`;
}

export function isConsensusMessage(m: { protocol: string }): boolean {
  return m.protocol === 'istanbul';
}

export type MessageFate = 'delivered' | 'dropped' | 'held' | 'in-flight';

export interface MessageFlight {
  id: number | null;
  from: string;
  to: string;
  protocol: string;
  code: number;
  type: string;
  size: number;
  sentMs: number;
  /** Delivery or drop time (null while held or in flight). */
  endMs: number | null;
  fate: MessageFate;
  /** Why it was dropped. */
  reason?: string;
  /** When a clogged link first held it. */
  heldMs?: number;
}

export class MessageTracker {
  readonly flights: MessageFlight[] = [];
  /** Sends left out once maxMessages was reached. */
  leftOut = 0;
  private readonly byId = new Map<number, MessageFlight>();
  private readonly fifo = new Map<string, MessageFlight[]>();

  constructor(private readonly maxMessages = 500_000) {}

  add(line: TraceLine, t: number): void {
    switch (line.kind) {
      case 'msg-sent': {
        if (this.flights.length >= this.maxMessages) {
          this.leftOut++;
          return;
        }
        const protocol = String(line.protocol);
        const code = line.code;
        const f: MessageFlight = {
          id: typeof line.id === 'number' ? line.id : null,
          from: String(line.from),
          to: String(line.to),
          protocol,
          code,
          type: messageTypeName(protocol, code),
          size: typeof line.size === 'number' ? line.size : 0,
          sentMs: t,
          endMs: null,
          fate: 'in-flight',
        };
        this.flights.push(f);
        if (f.id !== null) this.byId.set(f.id, f);
        else {
          const key = keyOf(line);
          let q = this.fifo.get(key);
          if (!q) this.fifo.set(key, (q = []));
          q.push(f);
        }
        break;
      }
      case 'msg-held': {
        const f = this.find(line, false);
        if (f && f.heldMs === undefined) f.heldMs = t;
        if (f) f.fate = 'held';
        break;
      }
      case 'msg-delivered':
      case 'msg-dropped': {
        const f = this.find(line, true);
        if (!f) return;
        f.endMs = t;
        f.fate = line.kind === 'msg-delivered' ? 'delivered' : 'dropped';
        if (line.kind === 'msg-dropped') f.reason = String(line.reason ?? '');
        if (f.id !== null) this.byId.delete(f.id);
        break;
      }
    }
  }

  private find(line: TraceLineOf<'msg-held' | 'msg-delivered' | 'msg-dropped'>, consume: boolean): MessageFlight | undefined {
    if (typeof line.id === 'number') return this.byId.get(line.id);
    const q = this.fifo.get(keyOf(line));
    if (!q || q.length === 0) return undefined;
    return consume ? q.shift() : q[0];
  }
}

function keyOf(line: TraceLineOf<'msg-sent' | 'msg-held' | 'msg-delivered' | 'msg-dropped'>): string {
  return `${String(line.from)}|${String(line.to)}|${String(line.protocol)}|${String(line.code)}`;
}

/**
 * Turns raw run events into observations: trace lines are read into typed records (lines of other
 * kinds, or missing the fields a checker needs, are left out), QBFT messages are decoded by the
 * checkers' own decoder, once per distinct buffer (the simulator hands one buffer to every
 * receiver, and relays pass it on as received), and an imported block's RLP is fetched through
 * `blockRlp`. Knows nothing of the World, so tests can feed it by hand.
 */
import type { TraceLine, TraceLineOf } from '../trace-events.ts';
import type { Fault, MessageJudged, Observation, RunNode } from './observation.ts';
import { SignerRecovery, type Hex } from './toolkit/crypto.ts';
import { decodeQbftMessage, isQbftCode, type QbftMessage } from './toolkit/qbft-messages.ts';

export interface FeedOptions {
  /** Absolute virtual time of the run's start; observation times are relative to it. */
  originMs: number;
  /** The RLP of a block a node imported, from that node's chain. */
  blockRlp: (node: string, hash: Hex) => Uint8Array | undefined;
  recovery?: SignerRecovery;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);
const isHex = (v: unknown): v is Hex => typeof v === 'string' && /^0x[0-9a-f]*$/.test(v);

function runNodes(v: unknown): RunNode[] {
  if (!Array.isArray(v)) return [];
  const out: RunNode[] = [];
  for (const n of v as unknown[]) {
    if (typeof n !== 'object' || n === null) continue;
    const r = n as Record<string, unknown>;
    const name = str(r.name);
    const address = str(r.address);
    const role = r.role === 'validator' || r.role === 'observer' || r.role === 'twin' ? r.role : undefined;
    if (name === undefined || !isHex(address) || role === undefined) continue;
    out.push({ name, address, role, faulty: r.faulty === true });
  }
  return out;
}

function faultOf(line: TraceLineOf<'fault'>, atMs: number): Fault | undefined {
  const base = { type: 'fault' as const, atMs, line, node: line.node };
  switch (line.fault) {
    case 'crash':
    case 'restart':
    case 'restart-wiped':
    case 'pause':
    case 'resume':
    case 'heal':
      return { ...base, fault: line.fault };
    case 'partition':
      return Array.isArray(line.groups) ? { ...base, fault: 'partition', groups: line.groups.map((g) => (Array.isArray(g) ? g.filter((x) => typeof x === 'string') : [])) } : undefined;
    case 'clog':
    case 'unclog': {
      const from = str(line.from);
      const to = str(line.to);
      return from !== undefined && to !== undefined ? { ...base, fault: line.fault, from, to } : undefined;
    }
    case 'clock-skew':
      return { ...base, fault: 'clock-skew', skewMs: int(line.skewMs) ?? 0 };
    case 'byzantine':
      return { ...base, fault: 'byzantine', behaviour: str(line.behaviour) ?? 'unknown' };
    default:
      return undefined;
  }
}

const JUDGED_KINDS: Record<string, MessageJudged['kind']> = { proposal: 'proposal', prepare: 'prepare', commit: 'commit', roundChange: 'round-change' };

function judgedOf(line: TraceLineOf<'message-accepted'> | TraceLineOf<'message-rejected'>, atMs: number, node: string): MessageJudged | undefined {
  const height = int(line.height);
  const round = int(line.round);
  const kind = typeof line.type === 'string' ? JUDGED_KINDS[line.type] : undefined;
  if (height === undefined || round === undefined || kind === undefined) return undefined;
  const accepted = line.kind === 'message-accepted';
  const rule = accepted ? undefined : str((line as TraceLineOf<'message-rejected'>).rule);
  const key = isHex(line.key) ? line.key : undefined;
  return { type: 'message-judged', atMs, line, node, height, kind, round, author: str(line.author) ?? '?', accepted, rule, key };
}

/** The trace line kinds observations are made of; lines of other kinds are read as nothing. */
export const OBSERVED_LINE_KINDS: ReadonlySet<string> = new Set([
  'run-started',
  'node-started',
  'fault',
  'round-started',
  'round-timer-expired',
  'block-timer-expired',
  'block-imported',
  'message-accepted',
  'message-rejected',
  'proposal-sent',
  'reorg',
]);

export class ObservationFeed {
  private readonly seenBuffers = new WeakSet<Uint8Array>();
  private readonly recovery: SignerRecovery;

  constructor(
    private readonly sink: (o: Observation) => void,
    private readonly opts: FeedOptions,
  ) {
    this.recovery = opts.recovery ?? new SignerRecovery();
  }

  /** A trace line, as the trace recorder hands it to subscribers. */
  traceLine(line: TraceLine): void {
    const o = this.read(line);
    if (o) this.sink(o);
  }

  /** A message a node put on the network (called for every send, before any fault decides its fate). */
  wireMessage(from: string, protocol: string, code: number, data: Uint8Array, nowMs: number): void {
    if (protocol !== 'istanbul' || !isQbftCode(code) || this.seenBuffers.has(data)) return;
    this.seenBuffers.add(data);
    let decoded: QbftMessage | { error: string };
    try {
      decoded = decodeQbftMessage(code, data, this.recovery);
    } catch (err) {
      decoded = { error: (err as Error).message };
    }
    this.sink({ type: 'message', atMs: nowMs - this.opts.originMs, from, code, data, decoded });
  }

  /** A marker from the runner (already an observation). */
  marker(o: Observation): void {
    this.sink(o);
  }

  private read(line: TraceLine): Observation | undefined {
    if (!OBSERVED_LINE_KINDS.has(line.kind)) return undefined;
    const atMs = line.t - this.opts.originMs;
    const node = line.node;
    switch (line.kind) {
      case 'run-started':
        return {
          type: 'run-started',
          atMs,
          line,
          nodes: runNodes(line.nodes),
          requestTimeoutSeconds: int(line.requestTimeoutSeconds),
          blockPeriodSeconds: int(line.blockPeriodSeconds),
          durationMs: int(line.durationMs),
          earlyRoundChange: line.earlyRoundChange === true,
        };
      case 'node-started':
        return node === null ? undefined : { type: 'node-started', atMs, line, node, wiped: line.wiped === true };
      case 'fault':
        return faultOf(line, atMs);
      case 'round-started':
      case 'round-timer-expired': {
        const height = int(line.height);
        const round = int(line.round);
        if (node === null || height === undefined || round === undefined) return undefined;
        return { type: line.kind, atMs, line, node, height, round };
      }
      case 'block-timer-expired': {
        const height = int(line.height);
        if (node === null || height === undefined) return undefined;
        return { type: 'block-timer-expired', atMs, line, node, height };
      }
      case 'block-imported': {
        const number = int(line.number);
        const hash = line.hash;
        if (node === null || number === undefined || !isHex(hash)) return undefined;
        // Fetched for every import: nodes may hold the same block with different sets of seals.
        const rlp = this.opts.blockRlp(node, hash);
        const status = line.status === 'head' || line.status === 'side' ? line.status : undefined;
        return { type: 'block-imported', atMs, line, node, number, hash, status, rlp };
      }
      case 'message-accepted':
      case 'message-rejected':
        return node === null ? undefined : judgedOf(line, atMs, node);
      case 'proposal-sent': {
        const height = int(line.height);
        const round = int(line.round);
        if (node === null || height === undefined || round === undefined || !isHex(line.digest)) return undefined;
        return { type: 'proposal-sent', atMs, line, node, height, round, digest: line.digest };
      }
      case 'reorg':
        if (node === null || !Array.isArray(line.removed)) return undefined;
        return { type: 'reorg', atMs, line, node, removed: line.removed.filter(isHex) };
      default:
        return undefined;
    }
  }
}

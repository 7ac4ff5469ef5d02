/**
 * Message flow per node at a virtual time: how many QBFT messages (PROPOSAL, PREPARE, COMMIT,
 * ROUND_CHANGE) it has sent and received so far, in total and by type, and how many of its sends
 * were dropped. Built once per replay; each question is a binary search.
 */
import { isConsensusMessage, type MessageFlight } from '../../sim/run-model/messages.ts';

export const CONSENSUS_TYPES = ['PROPOSAL', 'PREPARE', 'COMMIT', 'ROUND_CHANGE'] as const;

export interface TypeCount {
  type: string;
  sent: number;
  received: number;
}

export interface FlowCounts {
  sent: number;
  received: number;
  dropped: number;
  byType: TypeCount[];
}

interface NodeTimes {
  sent: Map<string, number[]>;
  received: Map<string, number[]>;
  dropped: number[];
}

/** Number of entries <= t in an ascending list. */
function countUpTo(list: readonly number[] | undefined, t: number): number {
  if (!list) return 0;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class MessageCounts {
  private readonly nodes = new Map<string, NodeTimes>();

  constructor(flights: readonly MessageFlight[]) {
    const push = (m: Map<string, number[]>, type: string, t: number) => {
      let l = m.get(type);
      if (!l) m.set(type, (l = []));
      l.push(t);
    };
    for (const f of flights) {
      if (!isConsensusMessage(f)) continue;
      push(this.of(f.from).sent, f.type, f.sentMs);
      if (f.fate === 'delivered' && f.endMs !== null) push(this.of(f.to).received, f.type, f.endMs);
      if (f.fate === 'dropped' && f.endMs !== null) this.of(f.from).dropped.push(f.endMs);
    }
    for (const n of this.nodes.values()) {
      for (const l of n.sent.values()) l.sort((a, b) => a - b);
      for (const l of n.received.values()) l.sort((a, b) => a - b);
      n.dropped.sort((a, b) => a - b);
    }
  }

  at(node: string, atMs: number): FlowCounts {
    const n = this.nodes.get(node);
    const types = new Set<string>(CONSENSUS_TYPES);
    if (n) for (const k of [...n.sent.keys(), ...n.received.keys()]) types.add(k);
    const byType = [...types].map((type) => ({ type, sent: countUpTo(n?.sent.get(type), atMs), received: countUpTo(n?.received.get(type), atMs) }));
    return {
      sent: byType.reduce((s, x) => s + x.sent, 0),
      received: byType.reduce((s, x) => s + x.received, 0),
      dropped: countUpTo(n?.dropped, atMs),
      byType,
    };
  }

  private of(node: string): NodeTimes {
    let n = this.nodes.get(node);
    if (!n) this.nodes.set(node, (n = { sent: new Map(), received: new Map(), dropped: [] }));
    return n;
  }
}

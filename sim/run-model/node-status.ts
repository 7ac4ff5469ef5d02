/**
 * Where each node of a run stands now, as its trace tells it: up or down, paused since when, its
 * incarnation (a restarted node has lost its memory), its head and the round it is in; and the
 * network's partition and clogged links. The invariant checkers' run model and the scenario
 * expectations read the same tracker; the report timeline keeps the same facts as intervals.
 */
import type { TraceLine, TraceLineOf } from '../trace-events.ts';

export interface NodeStatus {
  up: boolean;
  pausedSinceMs: number | undefined;
  /** node-started lines seen (1 after the first start). */
  incarnation: number;
  /** Block number of its latest new head (its store keeps it across a crash, not across a wipe). */
  head: number;
  /** The round it is in at height head + 1, if it started one. */
  round: { height: number; round: number } | undefined;
  /** Time of its latest node-started line. */
  startedAtMs: number;
}

/** A node before its first start. */
export function initialStatus(): NodeStatus {
  return { up: false, pausedSinceMs: undefined, incarnation: 0, head: 0, round: undefined, startedAtMs: 0 };
}

const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);

export class NodeStatusTracker {
  /** Current partition groups; undefined when the network is whole. */
  partition: string[][] | undefined;
  /** Directed links (`from>to`) clogged and not yet unclogged. */
  readonly clogged = new Set<string>();

  /** `statusOf` hands out the record kept for a node (made on first use, by the owner of the roster). */
  constructor(private readonly statusOf: (name: string) => NodeStatus) {}

  /** A trace line at `atMs` (on whatever clock the caller keeps); lines of other kinds change nothing. */
  add(line: TraceLine, atMs: number): void {
    const node = line.node;
    switch (line.kind) {
      case 'node-started':
        if (node !== null) this.started(this.statusOf(node), atMs, line.wiped === true);
        break;
      case 'fault':
        this.fault(line, atMs);
        break;
      case 'round-started': {
        const height = int(line.height);
        const round = int(line.round);
        if (node === null || height === undefined || round === undefined) break;
        const n = this.statusOf(node);
        if (height > n.head) n.round = { height, round };
        break;
      }
      case 'block-imported': {
        const number = int(line.number);
        if (node === null || number === undefined) break;
        const n = this.statusOf(node);
        if (line.status === 'head') {
          n.head = number;
          if (n.round && n.round.height <= number) n.round = undefined;
        }
        break;
      }
      default:
        break;
    }
  }

  private started(n: NodeStatus, atMs: number, wiped: boolean): void {
    n.up = true;
    n.pausedSinceMs = undefined;
    n.incarnation++;
    n.startedAtMs = atMs;
    n.round = undefined;
    if (wiped) n.head = 0;
  }

  private fault(line: TraceLineOf<'fault'>, atMs: number): void {
    const node = line.node;
    switch (line.fault) {
      case 'crash':
        if (node !== null) {
          const n = this.statusOf(node);
          n.up = false;
          n.pausedSinceMs = undefined;
          n.round = undefined;
        }
        break;
      case 'pause':
        if (node !== null) this.statusOf(node).pausedSinceMs = atMs;
        break;
      case 'resume':
        if (node !== null) this.statusOf(node).pausedSinceMs = undefined;
        break;
      case 'partition':
        if (Array.isArray(line.groups)) this.partition = line.groups.map((g) => (Array.isArray(g) ? g.filter((x) => typeof x === 'string') : []));
        break;
      case 'heal':
        this.partition = undefined;
        break;
      case 'clog':
      case 'unclog':
        if (typeof line.from === 'string' && typeof line.to === 'string') {
          if (line.fault === 'clog') this.clogged.add(`${line.from}>${line.to}`);
          else this.clogged.delete(`${line.from}>${line.to}`);
        }
        break;
      default:
        break;
    }
  }
}

/**
 * What each node did, read from the run's trace as it goes: the blocks it made its head, the blocks
 * it rejected, its starts and refusals to start. Only lines up to `untilMs` count (the runner may run
 * on past a scenario's end to settle its liveness checker).
 */
import type { Hex } from '../../node/crypto/bytes.ts';
import type { TraceLine } from '../trace.ts';
import { SIM_START_TIME_MS, type World } from '../world.ts';

export interface HeadBlock {
  hash: Hex;
  atMs: number;
}

export interface NodeHistory {
  /** Blocks that became its head, by number (QBFT blocks are final: one per number). */
  chain: Map<number, HeadBlock>;
  head: number;
  up: boolean;
  refused?: { atMs: number; block: number; head: number; reason: string };
  /** The first block it rejected after its last start, with why. */
  rejected?: { atMs: number; number: number; reason: string };
  startedAtMs: number[];
}

/** Heads nodes start with from a history in their data directory (a run at a real height: fast-prefix.ts). */
export interface StartHeights {
  initial: number;
  /** After a restart with an emptied data directory. */
  afterWipe(name: string): number;
}

export class ChainObserver {
  readonly nodes = new Map<string, NodeHistory>();

  constructor(
    names: readonly string[],
    private readonly untilMs: number,
    private readonly start: StartHeights = { initial: 0, afterWipe: () => 0 },
  ) {
    for (const name of names) this.nodes.set(name, { chain: new Map(), head: start.initial, up: false, startedAtMs: [] });
  }

  attach(world: World): void {
    world.trace.subscribe((line: TraceLine) => this.observe(line));
  }

  get(name: string): NodeHistory {
    const n = this.nodes.get(name);
    if (!n) throw new Error(`no node named ${name}`);
    return n;
  }

  /** Heads of all nodes at a moment (from the blocks each made its head by then). */
  headsAt(atMs: number): Map<string, number> {
    const out = new Map<string, number>();
    for (const [name, n] of this.nodes) {
      let head = this.start.initial;
      for (const [number, b] of n.chain) if (b.atMs <= atMs && number > head) head = number;
      out.set(name, head);
    }
    return out;
  }

  private observe(line: TraceLine): void {
    const atMs = line.t - SIM_START_TIME_MS;
    if (atMs > this.untilMs || line.node === null) return;
    const n = this.nodes.get(line.node);
    if (!n) return;
    switch (line.kind) {
      case 'block-imported':
        if (line.status === 'head') {
          if (!n.chain.has(line.number)) n.chain.set(line.number, { hash: line.hash, atMs });
          n.head = Math.max(n.head, line.number);
        }
        break;
      case 'block-rejected':
        n.rejected ??= { atMs, number: line.number, reason: line.reason };
        break;
      case 'node-started':
        n.up = true;
        n.rejected = undefined;
        // A wiped data directory: the node starts again from the genesis (what it had is kept in
        // `chain`, for the heads it had before).
        if (line.wiped) n.head = this.start.afterWipe(line.node);
        n.startedAtMs.push(atMs);
        break;
      case 'node-start-refused':
        n.up = false;
        n.refused = { atMs, block: line.block, head: line.head, reason: line.reason };
        break;
      case 'fault':
        if (line.fault === 'crash') n.up = false;
        break;
      default:
        break;
    }
  }
}

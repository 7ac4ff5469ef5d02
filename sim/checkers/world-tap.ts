/**
 * Connects a checker suite to a World: its trace (every line as it is recorded), its network
 * (every QBFT message a live node sends) and, for each imported block, the block's RLP from the
 * importing node's chain. Attach before the run-started line is recorded.
 */
import { SIM_START_TIME_MS, type World } from '../world.ts';
import { ObservationFeed } from './observation-feed.ts';
import type { CheckerSuite } from './suite.ts';
import type { Hex } from './toolkit/crypto.ts';

export interface CheckerTap {
  /** Adds a marker observation (node-reconfigured, faults-healed) at the world's current time. */
  mark(o: { type: 'node-reconfigured'; node: string } | { type: 'faults-healed' }): void;
  detach(): void;
}

/** The RLP of a block `node` imported, from that node's chain (nodes may hold one block with different sets of seals). */
export function importedBlockRlp(world: World, node: string, hash: Hex): Uint8Array | undefined {
  return world.nodes.get(node)?.node?.blockByHash(hash)?.block.serialize();
}

export function attachCheckers(world: World, suite: CheckerSuite): CheckerTap {
  const feed = new ObservationFeed((o) => suite.observe(o), {
    originMs: SIM_START_TIME_MS,
    blockRlp: (node: string, hash: Hex) => importedBlockRlp(world, node, hash),
  });
  const unsubscribe = world.trace.subscribe((line) => feed.traceLine(line));
  const untap = world.network.tap((from, message) => feed.wireMessage(from, message.protocol, message.code, message.data, world.kernel.nowMs()));
  return {
    mark(o) {
      const atMs = world.elapsedMs();
      feed.marker(o.type === 'faults-healed' ? { type: 'faults-healed', atMs } : { type: 'node-reconfigured', node: o.node, atMs });
    },
    detach() {
      unsubscribe();
      untap();
    },
  };
}

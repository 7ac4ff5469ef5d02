/**
 * A node of the node's own composition root (createNode) that runs no network and no timers: the
 * rehearsal's block builder and block importer for the history of a run at a real height. Its
 * clock stands at the simulator's start, when the history is all in the past.
 */
import type { Genesis } from '../../node/chain/genesis.ts';
import type { BugSwitches } from '../../node/bugs/bug-switches.ts';
import type { TrieNodeStore } from '../../node/execution/state-db.ts';
import { createNode, type QbftNode } from '../../node/node.ts';
import type { Runtime } from '../../node/runtime/ports.ts';
import type { NodeKey } from '../keys.ts';
import { SeededRandom } from '../random.ts';
import type { SimStore } from '../storage.ts';
import { SIM_START_TIME_MS } from '../world.ts';

export interface ScratchNodeOptions {
  genesis: Genesis;
  key: NodeKey;
  store: SimStore;
  /** Trie nodes shared with the other scratch nodes of the history (never pruned: see fast-prefix.ts). */
  db: TrieNodeStore;
  bugs: BugSwitches;
}

export function startScratchNode(o: ScratchNodeOptions): Promise<QbftNode> {
  const runtime: Runtime = {
    clock: { nowMs: () => SIM_START_TIME_MS },
    timers: { setTimer: () => 0, cancelTimer: () => {} },
    random: new SeededRandom(0),
    transport: { localId: 'history', peers: () => [], send: () => {}, setHandlers: () => {} },
    store: o.store,
    log: { log: () => {}, trace: () => {} },
  };
  return createNode({ name: 'history', genesis: o.genesis, privateKey: o.key.privateKey, bugs: o.bugs, sharedExecution: { store: o.db }, deliverNewChainHeads: false }, runtime);
}

/**
 * The history of a rehearsal at a real height: its blocks are those the node's block creator makes,
 * a node's chain reads them from its store's history, and a history that breaks the node's rules is
 * caught with the node's own reason.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { onchainBlockHash } from '../../node/chain/block-hashing.ts';
import { NO_BUGS } from '../../node/bugs/bug-switches.ts';
import { bytesToHex } from '../../node/crypto/bytes.ts';
import { TrieNodeStore } from '../../node/execution/state-db.ts';
import { deterministicKey, validatorKeys } from '../keys.ts';
import { SimStore } from '../storage.ts';
import { SIM_START_TIME_MS } from '../world.ts';
import { BlockSchedule } from './block-schedule.ts';
import { prepareHistory, rebaseForHistory, seedStore } from './fast-prefix.ts';
import { readOperatorGenesis, type OperatorGenesis } from './operator-genesis.ts';
import { buildPrefix } from './prefix-builder.ts';
import { validatePrefix } from './prefix-validation.ts';
import { ruleBoundaries } from './rule-boundaries.ts';
import { startScratchNode } from './scratch-node.ts';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/operator/', import.meta.url));

async function genesis(edit: (g: Record<string, any>) => void = () => {}): Promise<OperatorGenesis> {
  const raw = JSON.parse(readFileSync(FIXTURES + 'old.json', 'utf8'));
  edit(raw);
  return readOperatorGenesis(JSON.stringify(raw), 'edited.json');
}

async function built(g: OperatorGenesis, height: number, capacity = height) {
  const rebased = rebaseForHistory(g, g, height).old;
  const sched = new BlockSchedule(rebased.simRules, SIM_START_TIME_MS - rebaseForHistory(g, g, height).offsetMs);
  const db = new TrieNodeStore({ pruneFloor: Number.MAX_SAFE_INTEGER });
  const build = await buildPrefix({ genesis: rebased.simRules, sched, height, capacity, keys: validatorKeys(g.standIns.length), bugs: NO_BUGS, boundaries: ruleBoundaries(rebased.simRules, sched, height), db });
  return { ...build, rules: rebased.simRules, sched, db };
}

test('the copies between two changes are the blocks the node itself builds (London: its base fee falls to its floor first)', async (t) => {
  const g = await genesis((raw) => Object.assign(raw.config, { londonBlock: 0 }));
  const { history, built: byNode, rules, db } = await built(g, 400);
  t.true(byNode > 2 && byNode < 400, String(byNode));
  // Block 399 is a copy of block 398's template (not built by the node).
  t.is(history.templateOf(399), history.templateOf(398));
  const store = new SimStore();
  store.history = history.view(399);
  const node = await startScratchNode({ genesis: rules, key: deterministicKey('test', 0), store, db, bugs: NO_BUGS });
  try {
    t.is(node.head().number, 399);
    for (const n of [2, 200, 399]) {
      const parent = node.blockAt(n - 1)!;
      const own = await node.buildProposalBlock({ parent, round: 0, timestampSeconds: history.timestampAt(n), coinbase: history.coinbaseAt(n), transactions: [] });
      t.is(bytesToHex(onchainBlockHash(own.block.header)), history.hashAt(n), `block ${n}`);
      t.is(bytesToHex(onchainBlockHash(history.blockAt(n, node.common).header)), history.hashAt(n));
    }
    // The chain reads the history through its store: by number and by hash, and nothing above it.
    t.is(node.blockByHash(history.hashAt(150))!.number, 150);
    t.is(node.blockAt(150)!.block.header.timestamp, BigInt(history.timestampAt(150)));
    t.is(node.blockByHash(history.hashAt(400)), undefined);
  } finally {
    node.stop();
  }
});

test('a history that breaks the header rules is caught where it breaks, with the node\'s reason', async (t) => {
  const g = await genesis();
  const { history, rules, sched, db } = await built(g, 300, 301);
  // Block 301: a copy of block 300 with its parent's timestamp (the block period is 1 s).
  history.append(history.templateOf(300), 0, history.timestampAt(300));
  const verdict = await validatePrefix(history, { genesis: rules, sched, bugs: NO_BUGS, db, key: deterministicKey('test', 0) });
  t.is(verdict.height, 300);
  t.deepEqual(verdict.rejected, { number: 301, reason: 'timestampParent: timestamp only 0s after parent, minimum is 1s (block period 1s)' });
  // Blocks 3..300 were copies: checked by the header rules, the node importing only the first ones.
  t.true(verdict.imported < 5, String(verdict.imported));
});

test('every node gets the history as its genesis takes it: a new genesis that rewrites block 5 stops it at block 4', async (t) => {
  const old = await genesis();
  const next = await genesis((raw) => (raw.config.transitions = { qbft: [{ block: 5, blockreward: '1000' }] }));
  const { old: o, next: n, offsetMs } = rebaseForHistory(old, next, 500);
  const genesisMs = SIM_START_TIME_MS - offsetMs;
  const h = await prepareHistory({ old: o, next: n, schedOld: new BlockSchedule(o.simRules, genesisMs), schedNew: new BlockSchedule(n.simRules, genesisMs), height: 500, offsetMs, bugs: NO_BUGS });
  t.is(h.old.view.height, 500);
  t.is(h.next.view.height, 4);
  t.is(h.newCheck.rejected?.number, 5);
  t.regex(h.newCheck.rejected!.reason, /^execution: INVALID_STATE_ROOT/);
  // The last block of the history comes at the simulator's start.
  t.true(h.history.timestampAt(500) * 1000 <= SIM_START_TIME_MS && h.history.timestampAt(500) * 1000 > SIM_START_TIME_MS - 2000);
  const store = new SimStore();
  seedStore(store, h.old);
  t.is(store.history?.height, 500);
  store.wipe();
  t.is(store.history, undefined);
});

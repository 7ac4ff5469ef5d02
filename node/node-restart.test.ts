/**
 * A restarted node resumes from its persisted world state instead of re-executing its stored
 * chain. One validator on a virtual clock builds blocks with transfers, contract storage and logs;
 * the node is then thrown away and a new one (a new process: its own state store) starts on the
 * same Store.
 */
import test, { type ExecutionContext } from 'ava';
import type { Block } from '@ethereumjs/block';
import { parseGenesis } from './chain/genesis.ts';
import { bytesToHex, type Hex } from './crypto/bytes.ts';
import { createNode, type QbftNode } from './node.ts';
import type { Runtime } from './runtime/ports.ts';
import { STATE_HEAD_KEY, STATE_NODE_PREFIX, STATE_ROOT_PREFIX, RECEIPTS_PREFIX } from './execution/state-persistence.ts';
import { contractCall, createAddress, recipient, transfer } from './execution/test-fixtures.ts';
import { SimKernel } from '../sim/kernel.ts';
import { SeededRandom } from '../sim/random.ts';
import { SimStore } from '../sim/storage.ts';
import { SIM_START_TIME_MS } from '../sim/world.ts';
import { BESU_TEST_ACCOUNTS, validatorKeys } from '../sim/keys.ts';
import { LOGGER_CONTRACT, buildSimGenesis } from '../sim/genesis-builder.ts';
import { rpcClientFor } from '../sim/node-rpc-client.ts';

const [VALIDATOR] = validatorKeys(1);
const GENESIS_JSON = buildSimGenesis({ validators: [VALIDATOR.address], startTimeSeconds: SIM_START_TIME_MS / 1000 });
const SENDER = BESU_TEST_ACCOUNTS[0];
const COUNTER = createAddress(SENDER.address, 0n);

/** slot0 += 1; SSTORE(NUMBER, TIMESTAMP): one new storage slot per call. */
function counterInitCode(): Uint8Array {
  const runtime = Uint8Array.from([0x60, 0x00, 0x54, 0x60, 0x01, 0x01, 0x60, 0x00, 0x55, 0x42, 0x43, 0x55, 0x00]);
  return Uint8Array.from([0x60, runtime.length, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, runtime.length, 0x60, 0x00, 0xf3, ...runtime]);
}

class Harness {
  readonly kernel = new SimKernel({ startTimeMs: SIM_START_TIME_MS });
  readonly warnings: string[] = [];
  nonce = 0n;
  constructor(readonly store: SimStore = new SimStore()) {}

  /** A new node process on the store. */
  async start(): Promise<QbftNode> {
    const runtime: Runtime = {
      clock: this.kernel.clock,
      timers: this.kernel.timers('v0'),
      random: new SeededRandom(1),
      transport: { localId: 'v0', peers: () => [], send: () => {}, setHandlers: () => {} },
      store: this.store,
      log: {
        log: (level, message) => {
          if (level === 'warn' || level === 'error') this.warnings.push(message);
        },
        trace: () => {},
      },
    };
    return createNode({ name: 'v0', genesis: parseGenesis(GENESIS_JSON), privateKey: VALIDATOR.privateKey }, runtime);
  }

  crash(node: QbftNode): void {
    node.stop();
    this.kernel.cancelOwner('v0');
  }

  async runSeconds(seconds: number): Promise<void> {
    await this.kernel.runUntil(this.kernel.nowMs() + seconds * 1000);
  }

  async submit(t: ExecutionContext, node: QbftNode, raw: Uint8Array): Promise<Hex> {
    const r = await node.submitTransaction(raw);
    if (!r.ok) t.fail(r.error);
    return r.ok ? r.hash : '0x';
  }

  /** A contract, then blocks with a counter call, a logger call and a transfer each, then empty blocks. */
  async buildChain(t: ExecutionContext, node: QbftNode, rounds: number, label = 0): Promise<Hex[]> {
    const hashes: Hex[] = [];
    if (this.nonce === 0n) {
      hashes.push(await this.submit(t, node, contractCall(node.common, SENDER.privateKey, this.nonce++, undefined, counterInitCode()).serialize()));
      await this.runSeconds(2);
    }
    for (let i = 0; i < rounds; i++) {
      hashes.push(await this.submit(t, node, contractCall(node.common, SENDER.privateKey, this.nonce++, COUNTER, new Uint8Array(0)).serialize()));
      hashes.push(await this.submit(t, node, contractCall(node.common, SENDER.privateKey, this.nonce++, LOGGER_CONTRACT, new Uint8Array(0)).serialize()));
      hashes.push(await this.submit(t, node, transfer(node.common, SENDER.privateKey, this.nonce++, recipient(label * 100 + i), 1_000n + BigInt(i)).serialize()));
      await this.runSeconds(1);
    }
    await this.runSeconds(3);
    return hashes;
  }
}

/** Planted: the node's state flush after each new head does nothing (reached through its private parts). */
function skipStateFlushes(node: QbftNode): void {
  (node as unknown as { parts: { restorer: { persistState: () => Promise<unknown> } } }).parts.restorer.persistState = async () => undefined;
}

/** What the node answers about its state and its transactions, through JSON-RPC. */
async function observe(node: QbftNode, txs: Hex[], accounts: Hex[]): Promise<Record<string, unknown>> {
  const rpc = rpcClientFor(node, () => {});
  const head = node.head();
  const out: Record<string, unknown> = { head: head.hash, number: head.number };
  for (const a of accounts) out[`balance ${a}`] = await rpc.request('eth_getBalance', [a, 'latest']);
  out.nonce = await rpc.request('eth_getTransactionCount', [SENDER.address, 'latest']);
  out.code = await rpc.request('eth_getCode', [COUNTER, 'latest']);
  for (let slot = 0; slot <= head.number; slot += 3) out[`slot ${slot}`] = await rpc.request('eth_getStorageAt', [COUNTER, `0x${slot.toString(16)}`, 'latest']);
  for (const h of txs) out[`receipt ${h}`] = await rpc.request('eth_getTransactionReceipt', [h]);
  out.logs = await rpc.request('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: LOGGER_CONTRACT }]);
  return out;
}

function accountsOf(rounds: number, label = 0): Hex[] {
  return [SENDER.address, VALIDATOR.address, ...Array.from({ length: rounds }, (_, i) => recipient(label * 100 + i))];
}

test('a restarted node re-executes no stored block; balances, storage, code, receipts and logs are as before', async (t) => {
  const h = new Harness();
  const first = await h.start();
  const txs = await h.buildChain(t, first, 8);
  const before = await observe(first, txs, accountsOf(8));
  const head = first.head().number;
  t.true(head >= 12, `head ${head}`);
  t.is(before[`receipt ${txs[1]}`] === null, false);
  h.crash(first);

  const second = await h.start();
  t.is(second.head().number, head);
  t.is(second.replayedOnStart(), 0);
  t.is(second.executionStats().executed, 0, 'no stored block was re-executed');
  t.deepEqual(await observe(second, txs, accountsOf(8)), before);
  t.is(second.executionStats().executed, 0, 'receipts came from the store, not from re-execution');

  // the restored state carries on: new blocks with transactions on top of it
  const more = await h.buildChain(t, second, 2, 1);
  t.true(second.head().number > head);
  const after = (await observe(second, more, accountsOf(2, 1))) as Record<string, { status?: string } | string>;
  for (const hash of more) t.is((after[`receipt ${hash}`] as { status: string }).status, '0x1');
  t.is(after[`balance ${recipient(101)}`], '0x3e9');
  t.deepEqual(h.warnings, []);
  h.crash(second);
});

test('an empty block persists the marker only', async (t) => {
  const h = new Harness();
  const node = await h.start();
  await h.buildChain(t, node, 2);
  const writes: number[] = [];
  const write = h.store.write.bind(h.store);
  h.store.write = async (batch) => {
    writes.push(batch.length);
    return write(batch);
  };
  const from = node.head().number;
  await h.runSeconds(5);
  const blocks = node.head().number - from;
  t.true(blocks >= 4);
  // per block: the chain's own batch (block, canonical index, head) and the state batch (the marker)
  t.deepEqual(writes, Array.from({ length: blocks }, () => [3, 1]).flat());
  h.crash(node);
});

test('planted bug: without the state flush after each block, a restart falls back to re-executing the chain', async (t) => {
  const h = new Harness();
  const first = await h.start();
  // the flush on start writes genesis; later flushes are skipped
  skipStateFlushes(first);
  const txs = await h.buildChain(t, first, 5);
  const before = await observe(first, txs, accountsOf(5));
  const head = first.head().number;
  h.crash(first);
  t.is(JSON.parse(new TextDecoder().decode(h.store.getSync(STATE_HEAD_KEY))).number, 0);

  const second = await h.start();
  t.is(second.replayedOnStart(), head, 'the marker stayed at genesis: every block re-executed');
  t.is(second.executionStats().executed, head);
  t.deepEqual(await observe(second, txs, accountsOf(5)), before);
  h.crash(second);
});

test('a data directory without the marker (written before state persistence) starts by full replay, then persists', async (t) => {
  const h = new Harness();
  const first = await h.start();
  const txs = await h.buildChain(t, first, 5);
  const before = await observe(first, txs, accountsOf(5));
  const head = first.head().number;
  h.crash(first);
  const added = [STATE_NODE_PREFIX, STATE_ROOT_PREFIX, RECEIPTS_PREFIX].flatMap((p) => h.store.keysSync(p));
  t.true(added.length > 0);
  h.store.writeSync([STATE_HEAD_KEY, ...added].map((key) => ({ key, value: undefined })));

  const second = await h.start();
  t.is(second.replayedOnStart(), head);
  t.deepEqual(await observe(second, txs, accountsOf(5)), before);
  h.crash(second);
  t.truthy(h.store.getSync(STATE_HEAD_KEY), 'the replay persisted the state');

  const third = await h.start();
  t.is(third.replayedOnStart(), 0);
  t.deepEqual(await observe(third, txs, accountsOf(5)), before);
  t.is(third.executionStats().executed, 0, 'the replay persisted the receipts too');
  h.crash(third);
});

test('a persisted state with a node missing is not used: the node resumes from an older whole state', async (t) => {
  const h = new Harness();
  const first = await h.start();
  const txs = await h.buildChain(t, first, 5);
  const before = await observe(first, txs, accountsOf(5));
  const headEntry = first.head();
  h.crash(first);
  // the state root node of the head's state is gone (a torn copy, a bug)
  const rootKey = STATE_NODE_PREFIX + bytesToHex(headEntry.block.header.stateRoot).slice(2);
  t.truthy(h.store.getSync(rootKey));
  h.store.writeSync([{ key: rootKey, value: undefined }]);

  const second = await h.start();
  t.true(second.replayedOnStart() > 0, 'the head state was not trusted');
  t.true(second.replayedOnStart() < headEntry.number, 'an older kept state was');
  t.deepEqual(await observe(second, txs, accountsOf(5)), before);
  h.crash(second);
  const third = await h.start();
  t.is(third.replayedOnStart(), 0, 'the replay wrote the state again');
  h.crash(third);
});

test('a marker on a block a reorg dropped: the node replays from the newest kept state still canonical', async (t) => {
  const h = new Harness();
  const first = await h.start();
  await h.buildChain(t, first, 3);
  const forkPoint = first.head();
  h.crash(first);

  // branch B grows on a copy of the data directory from the fork point, longer than branch A
  const copy = new SimStore();
  copy.writeSync(h.store.keysSync('').map((key) => ({ key, value: h.store.getSync(key) })));
  const nonceAtFork = h.nonce;

  const a = await h.start();
  await h.buildChain(t, a, 3, 1);
  const aHead = a.head();
  h.crash(a);

  const hb = new Harness(copy);
  hb.nonce = nonceAtFork;
  await hb.kernel.runUntil(h.kernel.nowMs());
  const b = await hb.start();
  const bTxs = await hb.buildChain(t, b, 5, 2);
  const bBlocks: Block[] = [];
  for (let n = forkPoint.number + 1; n <= b.head().number; n++) bBlocks.push(b.blockAt(n)!.block);
  t.true(bBlocks.length > aHead.number - forkPoint.number);
  const expected = await observe(b, bTxs, accountsOf(5, 2));
  hb.crash(b);

  // node A learns branch B and crashes before its state flush (the flush is skipped)
  await h.kernel.runUntil(hb.kernel.nowMs());
  const c = await h.start();
  skipStateFlushes(c);
  for (const block of bBlocks) t.true((await c.importBlock(block)).ok);
  t.is(c.head().hash, b.head().hash);
  h.crash(c);
  t.is(JSON.parse(new TextDecoder().decode(h.store.getSync(STATE_HEAD_KEY))).hash, aHead.hash);

  // the newest kept state on branch B is the fork point's, kept under the first block that had it
  let keptFrom = forkPoint;
  while (keptFrom.number > 0) {
    const parent = b.blockAt(keptFrom.number - 1)!;
    if (bytesToHex(parent.block.header.stateRoot) !== bytesToHex(keptFrom.block.header.stateRoot)) break;
    keptFrom = parent;
  }
  t.true(keptFrom.number > 0);
  const d = await h.start();
  t.is(d.head().hash, expected.head as Hex);
  t.is(d.replayedOnStart(), d.head().number - keptFrom.number, 'replayed from the fork point');
  t.deepEqual(await observe(d, bTxs, accountsOf(5, 2)), expected);
  h.crash(d);
});

test('a block never shows as the head before its transactions are indexed: receipts are found as soon as RPC sees the block', async (t) => {
  const probes: Array<{ head: number; indexed: boolean }> = [];
  let txHash: Hex | undefined;
  let node: QbftNode | undefined;
  // Every store write is a moment a live reader can run in (LevelDB writes are asynchronous).
  class ProbingStore extends SimStore {
    override async write(batch: Array<{ key: string; value: Uint8Array | undefined }>): Promise<void> {
      const head = node?.head();
      if (txHash && head && head.block.transactions.some((tx) => bytesToHex(tx.hash()) === txHash)) probes.push({ head: head.number, indexed: node!.transactionLocation(txHash) !== undefined });
      return super.write(batch);
    }
  }
  const h = new Harness(new ProbingStore());
  node = await h.start();
  txHash = await h.submit(t, node, transfer(node.common, SENDER.privateKey, 0n, recipient(1), 1n).serialize());
  await h.runSeconds(3);
  t.true(probes.length > 0, 'the block with the transaction was written');
  t.deepEqual(probes.filter((p) => !p.indexed), [], 'no write saw the head block without its transaction indexed');
  h.crash(node);
});

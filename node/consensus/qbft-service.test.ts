/** The QBFT service under hostile and unusual input: garbage, floods, duplicates, far-future heights. */
import test from 'ava';
import { CURRENT_BESU } from '../bugs/hooks.ts';
import { bytesToHex, utf8ToBytes, type Hex } from '../crypto/bytes.ts';
import type { NodeTraceEvent } from '../runtime/trace-events.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { privateKeyToAddress } from '../crypto/secp256k1.ts';
import type { Log, TimerHandle, Timers } from '../runtime/ports.ts';
import { QbftService, type QbftServiceDeps } from './qbft-service.ts';
import type { HeightContext } from './qbft/core-types.ts';
import { encodeMessage, MessageCode, signPayload } from './qbft/messages.ts';

const keys = [1, 2, 3, 4]
  .map((i) => keccak256(utf8ToBytes(`svc-test-${i}`)))
  .map((privateKey) => ({ privateKey, address: privateKeyToAddress(privateKey) }))
  .sort((a, b) => (a.address < b.address ? -1 : 1));

function harness(limits: QbftServiceDeps['limits'] = { duplicateMessageLimit: 100, futureMessagesLimit: 50, futureMessagesMaxDistance: 10 }) {
  const sent: Array<{ code: number; except: string[] }> = [];
  const traces: NodeTraceEvent[] = [];
  let nextTimer = 1;
  const timers: Timers = { setTimer: (): TimerHandle => nextTimer++, cancelTimer: () => {} };
  const log: Log = { log: () => {}, trace: (e) => void traces.push(e) };
  const deps: QbftServiceDeps = {
    cfg: { privateKey: keys[1].privateKey, address: keys[1].address, earlyRoundChange: false, layout: 'besu26', maxRound: 1000, hooks: CURRENT_BESU },
    clock: { nowMs: () => 0 },
    timers,
    log,
    limits,
    gossip: true,
    validateBlock: async () => undefined,
    createBlock: async () => {
      throw new Error('not the proposer');
    },
    commitBlock: async () => {},
    headNumber: () => 0,
    multicast: (code, _data, except) => void sent.push({ code, except }),
    peerOf: (address) => (address === keys[0].address ? 'peer-of-v0' : undefined),
  };
  const service = new QbftService(deps);
  const ctx: HeightContext = {
    height: 1,
    parentTimestampSeconds: 0,
    parentCoinbase: '0x0000000000000000000000000000000000000000',
    validators: keys.map((k) => k.address),
    blockTimerAtMs: 1000,
    blockPeriodSeconds: 1,
    requestTimeoutMs: 2000,
    emptyBlockPeriodSeconds: 0,
  };
  return { service, sent, traces, ctx };
}

function prepareBytes(author: number, sequence: number, round = 0, tag = 'x'): Uint8Array {
  const digest = keccak256(utf8ToBytes(`${tag}/${sequence}/${round}`));
  return encodeMessage({ kind: 'prepare', signed: signPayload({ kind: 'prepare', sequence, round, digest }, keys[author].privateKey) });
}

test('garbage never throws; each distinct malformed message is counted once and the service keeps working', async (t) => {
  const { service, sent, ctx } = harness();
  await service.onNewHead(ctx);
  for (let i = 0; i < 500; i++) {
    const junk = keccak256(utf8ToBytes(`junk ${i}`)).subarray(0, 1 + (i % 32));
    await service.onMessage('peer', MessageCode.PREPARE + (i % 4), junk);
  }
  await service.onMessage('peer', 0x55, prepareBytes(0, 1));
  t.is(service.stats.malformed, 501, 'an unknown message code is malformed too');
  await service.onMessage('peer-a', MessageCode.PREPARE, prepareBytes(0, 1, 0, 'valid'));
  t.is(sent.length, 1, 'a valid current-height prepare from a validator is gossiped');
  t.deepEqual(sent[0].except, ['peer-a', 'peer-of-v0'], 'never back to the sender or to the author');
});

test('duplicates are dropped before any work, within the duplicate-filter bound', async (t) => {
  const { service, sent, ctx } = harness();
  await service.onNewHead(ctx);
  const bytes = prepareBytes(2, 1);
  for (let i = 0; i < 10; i++) await service.onMessage(`peer-${i}`, MessageCode.PREPARE, bytes);
  t.is(sent.length, 1);
});

test('messages from non-validators are neither processed nor gossiped', async (t) => {
  const { service, sent, ctx } = harness();
  await service.onNewHead(ctx);
  const outsider = keccak256(utf8ToBytes('outsider'));
  const bytes = encodeMessage({ kind: 'prepare', signed: signPayload({ kind: 'prepare', sequence: 1, round: 0, digest: new Uint8Array(32) }, outsider) });
  await service.onMessage('peer', MessageCode.PREPARE, bytes);
  t.is(sent.length, 0);
});

test('the future-message buffer is bounded by count and by distance', async (t) => {
  const { service, ctx } = harness();
  await service.onNewHead(ctx);
  const future = () => (service as unknown as { future: Map<number, unknown[]>; futureCount: number });
  for (let h = 2; h <= 40; h++) for (let r = 0; r < 5; r++) await service.onMessage('peer', MessageCode.PREPARE, prepareBytes(r % 4, h, r));
  t.true(future().futureCount <= 50);
  t.true([...future().future.keys()].every((h) => h <= 11), 'nothing beyond futuremessagesmaxdistance');
  const counted = [...future().future.values()].reduce((n, list) => n + list.length, 0);
  t.is(counted, future().futureCount);
});

test('buffered messages are replayed when their height starts and older heights are dropped', async (t) => {
  const { service, sent, ctx } = harness();
  await service.onNewHead(ctx);
  await service.onMessage('peer', MessageCode.PREPARE, prepareBytes(0, 2, 0, 'a'));
  await service.onMessage('peer', MessageCode.PREPARE, prepareBytes(2, 2, 0, 'b'));
  t.is(sent.length, 0, 'future messages wait');
  await service.onNewHead({ ...ctx, height: 2 });
  t.is(sent.length, 2, 'replayed and gossiped at height 2');
  await service.onMessage('peer', MessageCode.PREPARE, prepareBytes(3, 1, 0, 'c'));
  t.is(sent.length, 2, 'a message for a past height is dropped');
  t.is(bytesToHex(new Uint8Array(0)), '0x');
});

test('a node that is not a validator for the height runs no state machine and relays nothing', async (t) => {
  const { service, sent, ctx } = harness();
  await service.onNewHead({ ...ctx, validators: ctx.validators.filter((v: Hex) => v !== keys[1].address) });
  await service.onMessage('peer', MessageCode.PREPARE, prepareBytes(0, 1));
  t.is(sent.length, 0);
  t.is(service.stats.round, undefined);
});

test('a full future buffer drops the whole highest height; with one height left, its oldest message (Besu FutureMessageBuffer)', async (t) => {
  const { service, ctx } = harness({ duplicateMessageLimit: 100, futureMessagesLimit: 4, futureMessagesMaxDistance: 10 });
  await service.onNewHead(ctx);
  const future = () => (service as unknown as { future: Map<number, Array<{ message: { signed: { author: string } } }>>; futureCount: number }).future;
  await service.onMessage('p', MessageCode.PREPARE, prepareBytes(0, 3));
  await service.onMessage('p', MessageCode.PREPARE, prepareBytes(2, 3));
  await service.onMessage('p', MessageCode.PREPARE, prepareBytes(0, 2));
  await service.onMessage('p', MessageCode.PREPARE, prepareBytes(2, 2));
  t.deepEqual([...future().keys()].sort(), [2, 3]);
  await service.onMessage('p', MessageCode.PREPARE, prepareBytes(3, 2));
  t.deepEqual([...future().keys()], [2], 'over the limit: height 3, the highest, is dropped whole');
  t.is(future().get(2)!.length, 3);
  await service.onMessage('p', MessageCode.PREPARE, prepareBytes(0, 2, 1));
  await service.onMessage('p', MessageCode.PREPARE, prepareBytes(2, 2, 1));
  t.is(future().get(2)!.length, 4, 'one height left: its oldest message makes room');
  t.is(future().get(2)![0].message.signed.author, keys[2].address, 'the oldest (v0 at round 0) went first');
});

test('a new head at the height already being worked on is ignored (Besu: not above the current parent)', async (t) => {
  const { service, traces, ctx } = harness();
  await service.onNewHead(ctx);
  await service.onNewHead({ ...ctx, parentCoinbase: keys[3].address });
  t.true(traces.some((e) => e.kind === 'new-head-ignored'));
  await service.onNewHead({ ...ctx, height: 2 });
  t.is(service.stats.height, 2);
});

test('timer expiries and messages at or below the chain head are dropped', async (t) => {
  let head = 0;
  const { service, sent, traces, ctx } = harness();
  const callbacks: Array<() => unknown> = [];
  const deps = (service as unknown as { deps: QbftServiceDeps }).deps;
  deps.headNumber = () => head;
  deps.timers = { setTimer: (_ms, cb) => (callbacks.push(cb), callbacks.length), cancelTimer: () => {} };
  await service.onNewHead(ctx);
  head = 1; // block 1 imported; the new head has not reached consensus yet
  await callbacks[0]!();
  t.false(traces.some((e) => e.kind === 'round-started'), 'the block timer of the imported height starts no round');
  await service.onMessage('peer', MessageCode.PREPARE, prepareBytes(0, 1, 0, 'late'));
  t.is(sent.length, 0, 'a message for the imported height is neither processed nor gossiped');
});

test('consensus messages go to the height\'s validators only (Besu ValidatorPeers), own and relayed alike', async (t) => {
  const { service, ctx } = harness();
  const targets: Array<readonly Hex[]> = [];
  (service as unknown as { deps: QbftServiceDeps }).deps.multicast = (_code, _data, _except, validators) => void targets.push(validators);
  await service.onNewHead(ctx);
  await service.onMessage('peer-a', MessageCode.PREPARE, prepareBytes(0, 1, 0, 'relayed'));
  t.is(targets.length, 1);
  t.deepEqual(targets[0], ctx.validators);
});

test('a message seen again after it left the duplicate filter is handled again but not gossiped again (Besu UniqueMessageMulticaster)', async (t) => {
  const limits = { duplicateMessageLimit: 1, futureMessagesLimit: 50, futureMessagesMaxDistance: 10 };
  const run = async (gossipedHistoryLimit: number): Promise<number> => {
    const { service, sent, ctx } = harness({ ...limits, gossipedHistoryLimit });
    await service.onNewHead(ctx);
    const a = prepareBytes(0, 1, 0, 'a');
    await service.onMessage('peer', MessageCode.PREPARE, a);
    await service.onMessage('peer', MessageCode.PREPARE, prepareBytes(2, 1, 0, 'b')); // pushes `a` out of the duplicate filter
    await service.onMessage('peer', MessageCode.PREPARE, a);
    return sent.length;
  };
  t.is(await run(1000), 2, 'each message gossiped once');
  t.is(await run(0), 3, 'planted: without the gossip history the late copy is gossiped again');
});

test('events beyond messagequeuelimit are dropped and counted; the rest are handled (Besu BftEventQueue: size > limit)', async (t) => {
  const { service, sent, ctx } = harness({ duplicateMessageLimit: 100, futureMessagesLimit: 50, futureMessagesMaxDistance: 10, messageQueueLimit: 2 });
  await service.onNewHead(ctx);
  // The idle processor takes the first at once (as Besu's processor thread, blocked on the queue, does); the next wait.
  await Promise.all([0, 2, 3, 0, 2].map((author, i) => service.onMessage('peer', MessageCode.PREPARE, prepareBytes(author, 1, 0, `q${i}`))));
  t.is(service.stats.dropped, 1, 'one event handled, limit + 1 waiting; the next is dropped');
  t.is(sent.length, 4);
  await service.onMessage('peer', MessageCode.PREPARE, prepareBytes(3, 1, 0, 'later'));
  t.is(sent.length, 5, 'the queue drains and takes messages again');
});

test('a message that needs no work is handled at once, without a promise, when nothing else is queued', async (t) => {
  const { service, ctx } = harness();
  await service.onNewHead(ctx);
  const bytes = prepareBytes(2, 1, 0, 'dup');
  await service.onMessage('peer', MessageCode.PREPARE, bytes);
  t.is(service.onMessage('peer', MessageCode.PREPARE, bytes), undefined, 'a duplicate');
  t.is(service.onMessage('peer', MessageCode.PREPARE, prepareBytes(2, 5, 0, 'future')), undefined, 'a future-height message, buffered');
  const head = service.onNewHead({ ...ctx, height: 2 });
  t.truthy(service.onMessage('peer', MessageCode.PREPARE, bytes), 'behind a queued new head, even a duplicate waits its turn');
  await head;
});

test('timer expiries and new chain heads count against messagequeuelimit like messages (Besu BftEventQueue)', async (t) => {
  const { service, traces, ctx } = harness({ duplicateMessageLimit: 100, futureMessagesLimit: 50, futureMessagesMaxDistance: 10, messageQueueLimit: 1 });
  await service.onNewHead(ctx);
  const expiry = service.onRoundExpiry(1, 0);
  const message = service.onMessage('peer', MessageCode.PREPARE, prepareBytes(0, 1, 0, 'waiting'));
  const another = service.onMessage('peer', MessageCode.PREPARE, prepareBytes(2, 1, 0, 'waiting'));
  const head = service.onNewHead({ ...ctx, height: 2 });
  await Promise.all([expiry, message, another, head]);
  t.is(service.stats.dropped, 1, 'with the expiry being handled, the new chain head found two events waiting and was dropped');
  t.is(service.stats.height, 1);
  t.true(traces.some((e) => e.kind === 'round-timer-expired'), 'the expiry itself was queued and handled');
});

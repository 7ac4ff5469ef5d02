/**
 * Shared pieces of the real-client tests (ethers 6, viem 2, web3.js 4): a live network per test
 * file, the development keys, an inbox for subscription notifications, and checks of the raw
 * notification payloads against Besu's shapes (newHeads: BlockResult; logs: LogResult).
 */
import type { ExecutionContext } from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNetwork, type RunningNetwork } from '../cli/network-command.ts';
import { BESU_TEST_ACCOUNTS } from '../sim/keys.ts';

export const CHAIN_ID = 1337;
/** Longest wait for anything that needs a block or two (blocks come every second). */
export const BLOCK_WAIT_MS = 20_000;

export const keyHex = (i: number) => ('0x' + Buffer.from(BESU_TEST_ACCOUNTS[i].privateKey).toString('hex')) as `0x${string}`;

/** A live 4-validator network on ephemeral ports, with its own temporary data path. */
export function startTestNetwork(prefix: string): Promise<RunningNetwork> {
  return startNetwork({ validators: '4', 'data-path': mkdtempSync(join(tmpdir(), `qbft-lab-${prefix}-`)), 'base-port': '0' }, Date.now());
}

/** Rejects when `promise` has not settled within `ms`. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Collects values pushed by a subscription callback; `next` waits for the first that matches. */
export class Inbox<T> {
  readonly items: T[] = [];
  #waiters: Array<{ match: (x: T) => boolean; resolve: (x: T) => void }> = [];

  push = (item: T): void => {
    this.items.push(item);
    this.#waiters = this.#waiters.filter((w) => (w.match(item) ? (w.resolve(item), false) : true));
  };

  next(what: string, match: (x: T) => boolean = () => true, ms = BLOCK_WAIT_MS): Promise<T> {
    const found = this.items.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return within(ms, what, new Promise<T>((resolve) => this.#waiters.push({ match, resolve })));
  }
}

/** The params of an eth_subscription message: `{ subscription: id, result }`. */
export interface Notification {
  subscription: string;
  result: Record<string, any>;
}

const HASH = /^0x[0-9a-f]{64}$/;
const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DATA = /^0x([0-9a-f]{2})*$/;

function fields(t: ExecutionContext, what: string, o: Record<string, unknown>, spec: Record<string, RegExp>): void {
  for (const [key, re] of Object.entries(spec)) {
    const v = o[key];
    t.true(typeof v === 'string' && re.test(v), `${what}.${key} = ${JSON.stringify(v)} does not match ${re}`);
  }
}

/** A raw `newHeads` notification result: Besu's BlockResult with transaction hashes. */
export function assertNewHeadShape(t: ExecutionContext, head: Record<string, unknown>): void {
  fields(t, 'newHeads', head, {
    number: QUANTITY, hash: HASH, parentHash: HASH, mixHash: HASH, nonce: /^0x[0-9a-f]{16}$/, sha3Uncles: HASH,
    logsBloom: /^0x[0-9a-f]{512}$/, transactionsRoot: HASH, stateRoot: HASH, receiptsRoot: HASH, miner: ADDRESS,
    difficulty: QUANTITY, extraData: DATA, size: QUANTITY, gasLimit: QUANTITY, gasUsed: QUANTITY,
    timestamp: QUANTITY, baseFeePerGas: QUANTITY,
  });
  t.true(Array.isArray(head.transactions) && head.transactions.every((h) => typeof h === 'string' && HASH.test(h)), 'newHeads.transactions are hashes');
  t.deepEqual(head.uncles, []);
}

/** A raw `logs` notification result: Besu's LogResult of a log in a block just added. */
export function assertLogShape(t: ExecutionContext, log: Record<string, unknown>, expected: { address: string; transactionHash: string; topics: number }): void {
  fields(t, 'logs', log, { logIndex: QUANTITY, blockNumber: QUANTITY, blockHash: HASH, transactionHash: HASH, transactionIndex: QUANTITY, address: ADDRESS, data: DATA });
  t.is(log.removed, false);
  t.is((log.address as string).toLowerCase(), expected.address.toLowerCase());
  t.is(log.transactionHash, expected.transactionHash);
  t.true(Array.isArray(log.topics) && log.topics.length === expected.topics && log.topics.every((x) => typeof x === 'string' && HASH.test(x)), 'logs.topics');
}

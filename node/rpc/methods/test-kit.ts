/**
 * Test helpers for the JSON-RPC methods: a small simulated QBFT cluster with some traffic, and a
 * way to call a method's handler directly and see what a client would see.
 */
import { createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex, hexToBytes, type Hex } from '../../crypto/bytes.ts';
import type { QbftNode } from '../../node.ts';
import { RpcError } from '../errors.ts';
import { NodeApi, type NodeApiOptions } from '../node-api.ts';
import type { RpcMethodSpec } from '../registry.ts';
import { buildSimGenesis, type GenesisFork, LOGGER_CONTRACT } from '../../../sim/genesis-builder.ts';
import { BESU_TEST_ACCOUNTS, validatorKeys } from '../../../sim/keys.ts';
import { SIM_START_TIME_MS, World } from '../../../sim/world.ts';
import { allMethods } from './index.ts';

export const GWEI = 1_000_000_000n;

/**
 * Runtime code that, on every call, stores the call data's first word at slot 0 and returns the
 * old value of slot 0.
 * runtime: PUSH1 0 SLOAD PUSH1 0 CALLDATALOAD PUSH1 0 SSTORE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
 */
export const STORE_RUNTIME = '0x600054600035600055600052602060' + '00f3';
/** Constructor: SSTORE(0, 42), then return the runtime code. */
export function storeInitCode(): Uint8Array {
  const runtime = hexToBytes(STORE_RUNTIME);
  // PUSH1 42 PUSH1 0 SSTORE | PUSH1 len PUSH1 off PUSH1 0 CODECOPY PUSH1 len PUSH1 0 RETURN
  const prefixLen = 5 + 12;
  const code = [0x60, 42, 0x60, 0, 0x55, 0x60, runtime.length, 0x60, prefixLen, 0x60, 0, 0x39, 0x60, runtime.length, 0x60, 0, 0xf3];
  return Uint8Array.from([...code, ...runtime]);
}

/** Runtime code that always reverts with Error("nope"). */
export const REVERTER_RUNTIME = ('0x7f08c379a0' + '00'.repeat(28) + '600052' + '6020600452' + '6004602452' + '7f6e6f7065' + '00'.repeat(28) + '604452' + '60646000fd') as Hex;

export interface Cluster {
  world: World;
  node: QbftNode;
  api: NodeApi;
  /** Hashes of the transactions sent by `traffic`. */
  txs: { legacy: Hex; dynamic: Hex; logger: Hex; deploy: Hex };
  contract: Hex;
}

export function sign1559(node: QbftNode, account: number, fields: { nonce: bigint; to?: Hex; value?: bigint; data?: Uint8Array; gasLimit?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint }): TypedTransaction {
  return createFeeMarket1559Tx(
    {
      nonce: fields.nonce,
      to: fields.to,
      value: fields.value ?? 0n,
      data: fields.data,
      gasLimit: fields.gasLimit ?? 21_000n,
      maxFeePerGas: fields.maxFeePerGas ?? 100n * GWEI,
      maxPriorityFeePerGas: fields.maxPriorityFeePerGas ?? 2n,
      chainId: node.config.genesis.chainId,
    },
    { common: node.common },
  ).sign(BESU_TEST_ACCOUNTS[account].privateKey);
}

export function signLegacy(node: QbftNode, account: number, fields: { nonce: bigint; to?: Hex; value?: bigint; data?: Uint8Array; gasLimit?: bigint; gasPrice?: bigint }): TypedTransaction {
  return createLegacyTx(
    {
      nonce: fields.nonce,
      to: fields.to,
      value: fields.value ?? 0n,
      data: fields.data,
      gasLimit: fields.gasLimit ?? 21_000n,
      gasPrice: fields.gasPrice ?? 3n * GWEI,
    },
    { common: node.common },
  ).sign(BESU_TEST_ACCOUNTS[account].privateKey);
}

/**
 * Four validators, one-second blocks; after a few blocks: a legacy transfer and a 1559 transfer
 * from account 0, a logger call from account 1, a contract deployment from account 2.
 */
export async function startCluster(opts: { contractMode?: boolean; api?: NodeApiOptions; seed?: number; fork?: GenesisFork } = {}): Promise<Cluster> {
  const keys = validatorKeys(4);
  const genesis = buildSimGenesis({
    validators: keys.map((k) => k.address),
    startTimeSeconds: SIM_START_TIME_MS / 1000,
    blockPeriodSeconds: 1,
    contractMode: opts.contractMode,
    fork: opts.fork,
  });
  const world = new World({ seed: opts.seed ?? 11, genesis, nodes: keys.map((key, i) => ({ name: `v${i}`, key })) });
  await world.startAll();
  await world.runFor(3_000);
  const node = world.get('v0').node!;
  const api = new NodeApi(node, { clientVersion: 'qbft-lab/v0.1.0/test', ...opts.api });
  const submit = async (tx: TypedTransaction): Promise<Hex> => {
    const r = await node.submitTransaction(tx.serialize());
    if (!r.ok) throw new Error(r.error);
    return r.hash;
  };
  const legacy = await submit(signLegacy(node, 0, { nonce: 0n, to: BESU_TEST_ACCOUNTS[1].address, value: 1000n }));
  const dynamic = await submit(sign1559(node, 0, { nonce: 1n, to: BESU_TEST_ACCOUNTS[2].address, value: 2000n }));
  const logger = await submit(sign1559(node, 1, { nonce: 0n, to: LOGGER_CONTRACT, gasLimit: 40_000n }));
  const deploy = await submit(sign1559(node, 2, { nonce: 0n, data: storeInitCode(), gasLimit: 200_000n }));
  await world.runFor(6_000);
  const receipt = await api.receiptByTxHash(deploy);
  if (!receipt?.contractAddress) throw new Error('deployment not mined');
  return { world, node, api, txs: { legacy, dynamic, logger, deploy }, contract: receipt.contractAddress };
}

export type CallResult = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/** Calls a method's handler as the dispatcher would, returning its result or its error. */
export async function call(methods: RpcMethodSpec[] | NodeApi, name: string, params: unknown[] = []): Promise<CallResult> {
  const list = Array.isArray(methods) ? methods : allMethods(methods);
  const spec = list.find((m) => m.name === name);
  if (!spec) throw new Error(`no method ${name}`);
  try {
    const result = await spec.handler(params, { transport: 'in-process' });
    return { result: JSON.parse(JSON.stringify(result === undefined ? null : result)) };
  } catch (e) {
    if (e instanceof RpcError) return { error: e.toJSON() as { code: number; message: string; data?: unknown } };
    throw e;
  }
}

/** The result of a call that must succeed. */
export async function ok(methods: RpcMethodSpec[] | NodeApi, name: string, params: unknown[] = []): Promise<any> {
  const r = await call(methods, name, params);
  if ('error' in r) throw new Error(`${name} failed: ${JSON.stringify(r.error)}`);
  return r.result;
}

export { bytesToHex };

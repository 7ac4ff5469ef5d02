/** Signed transfers from Besu's development accounts, so the traced blocks have transactions in them. */
import { readFileSync } from 'node:fs';
import type { Common } from '@ethereumjs/common';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { sharedCommonFor } from '../../node/chain/common.ts';
import { parseGenesis } from '../../node/chain/genesis.ts';
import { bytesToHex, type Hex } from '../../node/crypto/bytes.ts';
import { BESU_TEST_ACCOUNTS, deterministicKey, type NodeKey } from '../../sim/keys.ts';
import { hexQuantity, rpc, rpcBatch, type RpcCall } from './rpc.ts';
import { waitUntil } from './time.ts';

const CHAIN_ID = 1337n;
const TRANSFER_GAS = 21_000n;
const MAX_FEE_PER_GAS_WEI = 10n ** 11n;
const TIP_PER_GAS_WEI = 10n ** 9n;
const INCLUSION_TIMEOUT_MS = 60_000;

export function commonOf(genesisFile: string): Common {
  return sharedCommonFor(parseGenesis(readFileSync(genesisFile, 'utf8')));
}

export function signTransfer(common: Common, from: NodeKey, nonce: bigint, to: Hex, valueWei: bigint): Hex {
  const tx = createFeeMarket1559Tx(
    { nonce, to, value: valueWei, gasLimit: TRANSFER_GAS, maxFeePerGas: MAX_FEE_PER_GAS_WEI, maxPriorityFeePerGas: TIP_PER_GAS_WEI, chainId: CHAIN_ID },
    { common },
  );
  return bytesToHex(tx.sign(from.privateKey).serialize());
}

export async function nonceOf(port: number, address: string, tag: 'latest' | 'pending'): Promise<bigint> {
  return BigInt(await rpc(port, 'eth_getTransactionCount', [address, tag]));
}

/** `perAccount` transfers from each development account to fresh addresses, sent in one batch. */
async function sendTransfers(port: number, common: Common, perAccount: number, round: number): Promise<void> {
  const raws: Hex[] = [];
  for (const account of BESU_TEST_ACCOUNTS) {
    const first = await nonceOf(port, account.address, 'pending');
    for (let i = 0; i < perAccount; i++) raws.push(signTransfer(common, account, first + BigInt(i), deterministicKey('bench-attack-sink', round * perAccount + i).address, 1n));
  }
  const answers = await rpcBatch(port, raws.map((raw) => ({ method: 'eth_sendRawTransaction', params: [raw] })), AbortSignal.timeout(30_000));
  const refused = answers.find((a) => a.error);
  if (refused) throw new Error(`eth_sendRawTransaction refused: ${refused.error!.message}`);
}

async function allIncluded(port: number): Promise<boolean> {
  for (const account of BESU_TEST_ACCOUNTS) if ((await nonceOf(port, account.address, 'latest')) < (await nonceOf(port, account.address, 'pending'))) return false;
  return true;
}

/** Numbers of the blocks up to the head that hold at least one transaction. */
async function blocksWithTransactions(port: number): Promise<number[]> {
  const head = Number(BigInt(await rpc(port, 'eth_blockNumber')));
  const calls: RpcCall[] = [];
  for (let n = 1; n <= head; n++) calls.push({ method: 'eth_getBlockTransactionCountByNumber', params: [hexQuantity(n)] });
  const answers = await rpcBatch(port, calls, AbortSignal.timeout(30_000));
  return answers.flatMap((a, i) => (typeof a.result === 'string' && BigInt(a.result) > 0n ? [i + 1] : []));
}

/** `rounds` rounds of transfers, each waited for, so they land in several blocks; returns the blocks that hold them. */
export async function seedTransfers(port: number, genesisFile: string, rounds: number, perAccountPerRound: number): Promise<number[]> {
  const common = commonOf(genesisFile);
  for (let round = 0; round < rounds; round++) {
    await sendTransfers(port, common, perAccountPerRound, round);
    if (!(await waitUntil(() => allIncluded(port), INCLUSION_TIMEOUT_MS, 250))) throw new Error('the seeded transfers were not included in time');
  }
  return blocksWithTransactions(port);
}

/**
 * Gas price methods (besu: ethereum/api/.../internal/methods/EthGasPrice.java,
 * EthMaxPriorityFeePerGas.java, EthFeeHistory.java, results/FeeHistory.java,
 * api/query/BlockchainQueries.gasPrice/gasPriorityFee/gasPriceLowerBound; snapshot 3fd224e2).
 *
 * - eth_gasPrice: the 50th percentile of the gas prices of legacy and access-list transactions in
 *   the last 100 blocks (1559 transactions carry no gas price), at least max(--min-gas-price, next
 *   base fee) and at most 500 gwei; with no such transaction, that lower bound.
 * - eth_blobBaseFee (EthBlobBaseFee.java): the next block's blob base fee, 0 before Cancun.
 * - eth_maxPriorityFeePerGas: the same percentile over maxPriorityFeePerGas, at least --min-priority-fee.
 * - eth_feeHistory: 1..1024 blocks ending at the given block; base fees (plus the next one), blob
 *   base fees (0 before Cancun), gas used ratios, blob gas used ratios and, for at most 100
 *   percentiles, the rewards (effective priority fees, percentiles sorted, by gas used).
 */
import type { ChainEntry } from '../../chain/chain.ts';
import { rpcError } from '../errors.ts';
import { qty } from '../formatters/hex.ts';
import { effectivePriorityFeePerGas } from '../formatters/transaction.ts';
import type { NodeApi } from '../node-api.ts';
import { optional, parseBlockParam, parseUnsignedInt } from '../params.ts';
import type { RpcMethodSpec } from '../registry.ts';
import { ForkCommons, blobBaseFeeOf, maxBlobGasOf, nextBlobBaseFee } from '../../execution/blob-fees.ts';

function parsePercentiles(x: unknown): number[] {
  if (!Array.isArray(x)) throw rpcError('INVALID_REWARD_PERCENTILES_PARAMS');
  return x.map((v) => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
    if (!Number.isFinite(n)) throw rpcError('INVALID_REWARD_PERCENTILES_PARAMS');
    return n;
  });
}

export function ethFeeMethods(api: NodeApi): RpcMethodSpec[] {
  const cancunAt = (number: number, timestamp: bigint) => api.isActivatedAt(4844, number, timestamp);
  const forks = new ForkCommons(api.node.common);
  const forkOf = (number: number, timestamp: bigint) => forks.at(number, timestamp);

  /** Blob base fee of a block (from its own excess blob gas; 0 before Cancun or for genesis). */
  const blobFeeOf = (e: ChainEntry): bigint => {
    if (e.number === 0 || !cancunAt(e.number, e.block.header.timestamp)) return 0n;
    return blobBaseFeeOf(e.block.header, forkOf(e.number, e.block.header.timestamp));
  };

  async function rewardsOf(entry: ChainEntry, sortedPercentiles: number[]): Promise<bigint[]> {
    const txs = entry.block.transactions;
    if (txs.length === 0) return sortedPercentiles.map(() => 0n);
    const baseFee = entry.block.header.baseFeePerGas;
    const receipts = await api.receipts(entry);
    const infos = txs
      .map((tx, i) => ({ gasUsed: receipts[i]?.gasUsed ?? 0n, fee: effectivePriorityFeePerGas(tx, baseFee) }))
      .sort((a, b) => (a.fee < b.fee ? -1 : a.fee > b.fee ? 1 : 0));
    const blockGasUsed = Number(entry.block.header.gasUsed);
    const out: bigint[] = [];
    let cumulative = Number(infos[0].gasUsed);
    let index = 0;
    for (const p of sortedPercentiles) {
      const threshold = (p * blockGasUsed) / 100;
      while (cumulative < threshold && index < infos.length - 1) {
        index++;
        cumulative += Number(infos[index].gasUsed);
      }
      out.push(infos[index].fee);
    }
    return out;
  }

  return [
    { name: 'eth_gasPrice', group: 'ETH', handler: () => qty(api.gasPrice()) },
    { name: 'eth_maxPriorityFeePerGas', group: 'ETH', handler: () => qty(api.maxPriorityFeePerGas()) },
    {
      // EthBlobBaseFee: the blob base fee of the head's child (0 when that block is before Cancun)
      name: 'eth_blobBaseFee',
      group: 'ETH',
      handler: () => {
        const head = api.head();
        const h = head.block.header;
        if (!cancunAt(head.number + 1, h.timestamp)) return qty(0);
        return qty(nextBlobBaseFee(h, forkOf(head.number + 1, h.timestamp)));
      },
    },
    {
      name: 'eth_feeHistory',
      group: 'ETH',
      handler: async (params) => {
        const blockCount = parseUnsignedInt(params[0], 'INVALID_BLOCK_COUNT_PARAMS');
        if (blockCount < 1 || blockCount > 1024) throw rpcError('INVALID_BLOCK_COUNT_PARAMS');
        const highest = parseBlockParam(params[1], 'INVALID_BLOCK_PARAMS');
        const percentiles = optional(params[2], parsePercentiles);
        const head = api.headNumber();
        const highestNumber =
          highest.kind === 'number' ? highest.number : highest.tag === 'earliest' ? 0n : BigInt(head);
        if (highestNumber > BigInt(head)) throw rpcError('INVALID_BLOCK_NUMBER_PARAMS');
        const hi = Number(highestNumber);
        const first = Math.max(0, hi - (blockCount - 1));
        const last = blockCount > hi ? hi + 1 : first + blockCount; // exclusive
        const entries: ChainEntry[] = [];
        for (let n = first; n < last; n++) {
          const e = api.byNumber(n);
          if (e) entries.push(e);
        }
        const baseFees = entries.map((e) => e.block.header.baseFeePerGas ?? 0n);
        // the next base fee: the next block's own, or computed from the last one
        let nextBaseFee = 0n;
        const nextEntry = api.byNumber(hi + 1);
        if (nextEntry) nextBaseFee = nextEntry.block.header.baseFeePerGas ?? 0n;
        else if (entries.length > 0) {
          const lastHeader = entries[entries.length - 1].block.header;
          nextBaseFee = api.node.nextBaseFee(lastHeader, lastHeader.number + 1n, lastHeader.timestamp) ?? 0n;
        }
        const blobFees = entries.map(blobFeeOf);
        if (entries.length > 0) {
          const lastE = entries[entries.length - 1];
          const h = lastE.block.header;
          const next = api.byNumber(lastE.number + 1);
          if (next) blobFees.push(blobFeeOf(next));
          else
            blobFees.push(
              cancunAt(lastE.number + 1, h.timestamp + 1n) ? nextBlobBaseFee(h, forkOf(lastE.number + 1, h.timestamp + 1n)) : 0n,
            );
        }
        const gasUsedRatio = entries.map((e) => Number(e.block.header.gasUsed) / Number(e.block.header.gasLimit));
        const blobGasUsedRatio = entries.map((e) =>
          cancunAt(e.number, e.block.header.timestamp) ? Number(e.block.header.blobGasUsed ?? 0n) / Number(maxBlobGasOf(forkOf(e.number, e.block.header.timestamp))) : 0,
        );
        const result: Record<string, unknown> = {
          oldestBlock: qty(first),
          baseFeePerGas: [...baseFees, nextBaseFee].map(qty),
          baseFeePerBlobGas: blobFees.map(qty),
          gasUsedRatio,
          blobGasUsedRatio,
        };
        if (percentiles !== undefined && percentiles.length <= 100) {
          const sorted = [...percentiles].sort((a, b) => a - b);
          const rewards: string[][] = [];
          for (const e of entries) rewards.push((await rewardsOf(e, sorted)).map(qty));
          result.reward = rewards;
        }
        return result;
      },
    },
  ];
}


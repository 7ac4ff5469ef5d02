/**
 * EIP-4844's header fields against the parent, under the block's own fork: `excessBlobGas` as the
 * fork's blob schedule (genesis blobSchedule, bpo forks) and EIP-7918's reserve price compute it,
 * and `blobGasUsed` a whole number of blobs within the fork's maximum. The execution engine checks
 * that `blobGasUsed` matches the body.
 */
import { paramsBlock, type BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { decodingCommon } from './decoding-common.ts';

/** Returns why the header's blob gas fields are wrong, or undefined. */
export function checkBlobGasFields(h: BlockHeader, parent: BlockHeader, chainCommon: Common): string | undefined {
  const c = decodingCommon(chainCommon, { blockNumber: h.number, timestamp: h.timestamp });
  if (!c.isActivatedEIP(4844)) return undefined;
  c.updateParams(paramsBlock);
  const expected = parent.excessBlobGas === undefined ? 0n : parent.calcNextExcessBlobGas(c);
  if (h.excessBlobGas !== expected) return `excessBlobGas ${h.excessBlobGas}, expected ${expected}`;
  const perBlob = c.param('blobGasPerBlob');
  const max = c.getBlobGasSchedule().maxBlobGasPerBlock;
  const used = h.blobGasUsed ?? 0n;
  if (used % perBlob !== 0n || used > max) return `blobGasUsed ${used} is not a whole number of blobs (${perBlob} gas each) within ${max}`;
  return undefined;
}

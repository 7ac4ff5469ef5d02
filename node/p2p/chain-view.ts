/** What the eth protocol handlers need from the node: a read view of the chain and an import hook. */
import type { Block } from '@ethereumjs/block';
import type { Hex } from '../crypto/bytes.ts';

export interface ChainView {
  networkId: bigint;
  genesisHash: Hex;
  head(): { number: number; hash: Hex; td: bigint };
  hasBlock(hash: Hex): boolean;
  canonicalHashAt(number: number): Hex | undefined;
  /** A sealed block (commit seals in extraData), canonical or on a side chain. */
  blockByHash(hash: Hex): Block | undefined;
}

export type ImportResult = { ok: true } | { ok: false; reason: string };

export interface BlockSink {
  /** Full validation and fork choice, done by the node. A block already known should answer ok. */
  importBlock(block: Block): Promise<ImportResult>;
}

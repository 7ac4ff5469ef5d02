/**
 * Conversions between ethereumjs blocks and the raw header/body values the eth messages carry.
 * QBFT headers (difficulty 1, long extraData) need `skipConsensusFormatValidation`; the node
 * checks headers, seals and state itself when it imports a block.
 */
import { blockFromValues } from '../chain/block-hashing.ts';
import {
  Block,
  createBlockHeaderFromBytesArray,
  type BlockHeader,
} from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { BlockBodyWire, BlockWire, HeaderFields } from './eth-messages.ts';

function opts(common: Common) {
  return { common, skipConsensusFormatValidation: true } as const;
}

export function headerToWire(header: BlockHeader): HeaderFields {
  return header.raw();
}

export function bodyToWire(block: Block): BlockBodyWire {
  const [, transactions, ommers, withdrawals] = block.raw();
  const body: BlockBodyWire = { transactions, ommers };
  if (withdrawals !== undefined) body.withdrawals = withdrawals;
  return body;
}

export function blockToWire(block: Block): BlockWire {
  return { header: headerToWire(block.header), ...bodyToWire(block) };
}

/** Parses a header's fields; throws when they do not form a header for `common`. */
export function headerFromWire(fields: HeaderFields, common: Common): BlockHeader {
  return createBlockHeaderFromBytesArray(fields, opts(common));
}

/** Joins a header and a body into a Block; throws on malformed transactions or fields. */
export function blockFromWire(header: HeaderFields, body: BlockBodyWire, common: Common): Block {
  const values = [header, body.transactions, body.ommers] as unknown[];
  if (body.withdrawals !== undefined) values.push(body.withdrawals);
  return blockFromValues(values, common);
}

/**
 * Whether the body belongs to the header: the transactions root, the ommers hash and (when the
 * header has one) the withdrawals root match. Run before importing bodies a peer sent.
 */
export async function bodyMatchesHeader(block: Block): Promise<boolean> {
  if (!block.uncleHashIsValid()) return false;
  if (!(await block.transactionsTrieIsValid())) return false;
  if (block.header.withdrawalsRoot !== undefined) {
    if (block.withdrawals === undefined) return false;
    if (!(await block.withdrawalsTrieIsValid())) return false;
  }
  return true;
}

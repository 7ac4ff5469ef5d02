/**
 * Blocks as the checkers read them: the header fields they judge, the QBFT extraData
 * RLP [vanity, [validators], vote, round, [seals]], and the two BFT header hashes:
 * - on-chain hash: keccak of the header with extraData re-encoded with round 0 and no seals. It
 *   names the block in the chain and ignores round and seals, so it is also the identity of a
 *   block across re-proposals in later rounds.
 * - committed-seal hash for round r: the same with round r (still no seals). Commit seals sign
 *   it, and a block proposed in round r is named by it (the digest in PREPARE and COMMIT).
 * The vanity, validator list and vote are re-emitted exactly as they were encoded.
 */
import { keccak, toHex, type Hex } from './crypto.ts';
import { bytesOf, encodeList, encodeScalar, encodeString, itemsOf, readRlp, scalarOf, type RlpItem } from './rlp.ts';

export interface HeaderVote {
  recipient: Hex;
  add: boolean;
}

export interface QbftExtraData {
  vanity: Uint8Array;
  validators: Hex[];
  vote: HeaderVote | undefined;
  round: number;
  seals: Uint8Array[];
  /** Encodings of vanity, validators and vote, as found. */
  readonly rawHead: readonly [Uint8Array, Uint8Array, Uint8Array];
}

export interface DecodedBlock {
  number: number;
  parentHash: Hex;
  coinbase: Hex;
  timestamp: number;
  /** Encodings of the header's fields, as found. */
  headerFields: readonly Uint8Array[];
  extraDataBytes: Uint8Array;
  /** The extraData, or why it is not a QBFT extraData. */
  extra: QbftExtraData | { error: string };
  onchainHash: Hex;
  txCount: number;
}

const PARENT_HASH = 0;
const COINBASE = 2;
const NUMBER = 8;
const TIMESTAMP = 11;
const EXTRA_DATA = 12;
const MAX_ROUND = 0x7fffffff;
const EMPTY_LIST = Uint8Array.of(0xc0);

function address(item: RlpItem, what: string): Hex {
  const bytes = bytesOf(item, what);
  if (bytes.length !== 20) throw new Error(`${what} is ${bytes.length} bytes, not 20`);
  return toHex(bytes);
}

function decodeVote(item: RlpItem): HeaderVote | undefined {
  const parts = itemsOf(item, 'vote');
  if (parts.length === 0) return undefined;
  if (parts.length !== 2) throw new Error(`vote has ${parts.length} items, not 0 or 2`);
  const recipient = address(parts[0]!, 'vote recipient');
  const type = bytesOf(parts[1]!, 'vote type');
  // Besu writes a drop as the empty string and reads it as the byte 0x00; an add is 0xff.
  if (type.length === 0 || (type.length === 1 && type[0] === 0x00)) return { recipient, add: false };
  if (type.length === 1 && type[0] === 0xff) return { recipient, add: true };
  throw new Error(`vote type ${toHex(type)} is neither add (0xff) nor drop`);
}

/** Decodes QBFT extraData; throws with the reason when it is malformed. Items after the seals are ignored, as Besu does. */
export function decodeQbftExtraData(bytes: Uint8Array): QbftExtraData {
  const items = itemsOf(readRlp(bytes), 'extraData');
  if (items.length < 5) throw new Error(`extraData has ${items.length} items, not 5`);
  const [vanityItem, validatorsItem, voteItem, roundItem, sealsItem] = items as [RlpItem, RlpItem, RlpItem, RlpItem, RlpItem];
  const vanity = bytesOf(vanityItem, 'vanity');
  const validators = itemsOf(validatorsItem, 'validator list').map((v, i) => address(v, `validator ${i}`));
  const vote = decodeVote(voteItem);
  const round = scalarOf(roundItem, 'round', 4);
  if (round > MAX_ROUND) throw new Error(`round ${round} is out of range`);
  const seals = itemsOf(sealsItem, 'seal list').map((s, i) => bytesOf(s, `seal ${i}`));
  return { vanity, validators, vote, round, seals, rawHead: [vanityItem.raw, validatorsItem.raw, voteItem.raw] };
}

/** extraData with the same vanity, validators and vote, the given round and no seals. */
export function extraDataWithoutSeals(extra: QbftExtraData, round: number): Uint8Array {
  return encodeList([...extra.rawHead, encodeScalar(round), EMPTY_LIST]);
}

function headerHashWithExtra(fields: readonly Uint8Array[], extraData: Uint8Array): Hex {
  const copy = fields.map((f, i) => (i === EXTRA_DATA ? encodeString(extraData) : f));
  return toHex(keccak(encodeList(copy)));
}

/** The committed-seal hash of a block for `round`: what commit seals sign. */
export function commitSealHash(block: DecodedBlock, round: number): Hex {
  if ('error' in block.extra) throw new Error(`no seal hash: ${block.extra.error}`);
  return headerHashWithExtra(block.headerFields, extraDataWithoutSeals(block.extra, round));
}

/** The digest a PREPARE or COMMIT names for this block: its committed-seal hash for its own round. */
export function proposalDigest(block: DecodedBlock): Hex {
  if ('error' in block.extra) throw new Error(`no digest: ${block.extra.error}`);
  return commitSealHash(block, block.extra.round);
}

/** Decodes a block's RLP [header, transactions, ommers, ...]; throws when the header cannot be read. */
export function decodeBlock(rlp: Uint8Array): DecodedBlock {
  const parts = itemsOf(readRlp(rlp), 'block');
  if (parts.length < 3) throw new Error(`block has ${parts.length} items, fewer than 3`);
  const headerItems = itemsOf(parts[0]!, 'header');
  if (headerItems.length <= EXTRA_DATA) throw new Error(`header has ${headerItems.length} fields`);
  const headerFields = headerItems.map((f, i) => {
    bytesOf(f, `header field ${i}`);
    return f.raw;
  });
  const number = scalarOf(headerItems[NUMBER]!, 'block number', 8);
  const extraDataBytes = bytesOf(headerItems[EXTRA_DATA]!, 'extraData');
  let extra: DecodedBlock['extra'];
  try {
    extra = decodeQbftExtraData(extraDataBytes);
  } catch (err) {
    extra = { error: (err as Error).message };
  }
  const hashExtra = 'error' in extra ? undefined : extraDataWithoutSeals(extra, 0);
  return {
    number,
    parentHash: toHex(bytesOf(headerItems[PARENT_HASH]!, 'parent hash')),
    coinbase: address(headerItems[COINBASE]!, 'coinbase'),
    timestamp: scalarOf(headerItems[TIMESTAMP]!, 'timestamp', 8),
    headerFields,
    extraDataBytes,
    extra,
    onchainHash: hashExtra === undefined ? toHex(keccak(parts[0]!.raw)) : headerHashWithExtra(headerFields, hashExtra),
    txCount: itemsOf(parts[1]!, 'transactions').length,
  };
}

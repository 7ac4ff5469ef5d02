/**
 * What a Byzantine behaviour works with: its own key (so what it sends is validly signed), what it
 * has seen on the wire, and helpers to re-sign, re-encode and peek into QBFT messages. Messages
 * of other authors can only be passed on or replayed, never forged.
 */
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, bytesToHex, hexToBytes, intToBytes, type Hex } from '../../node/crypto/bytes.ts';
import { keccak256 } from '../../node/crypto/keccak.ts';
import { blockFromRlp, blockFromValues, blockToRlp, committedSealHash, extraDataOf } from '../../node/chain/block-hashing.ts';
import { encodeExtraData } from '../../node/chain/extra-data.ts';
import { decodeMessage, MessageCode, type QbftMessage, type WireLayout } from '../../node/consensus/qbft/messages.ts';
import { encodeRawList, isList, listItems, stringOf } from '../../node/consensus/qbft/messages/rlp-raw.ts';
import { recoverAddressCached, signRemembered } from '../../node/consensus/qbft/signer-cache.ts';
import type { PeerId, WireMessage } from '../../node/runtime/ports.ts';
import type { MessageMemory } from './memory.ts';

export interface ByzantineKit {
  readonly own: Hex;
  /** This node's peer id. */
  readonly self: PeerId;
  readonly privateKey: Uint8Array;
  readonly common: Common;
  readonly layout: WireLayout;
  readonly memory: MessageMemory;
  peers(): PeerId[];
  /** Counts one hostile act of a kind (tests read the counts to see a behaviour fired). */
  act(kind: string): void;
  /**
   * 0, 1, 2, ... per key, plus `salt`: picks the next variant of a behaviour. Behaviours that act
   * rarely salt it with the message's height and round, so that their first act is not always the
   * same variant.
   */
  turn(key: string, salt?: number): number;
  /** Behaviour-specific state that outlives one message. */
  readonly state: Map<string, unknown>;
}

/** An istanbul message the node is sending (its own, or one it relays). */
export interface Outgoing {
  code: number;
  data: Uint8Array;
  /** Signed by this node's key. */
  own: boolean;
  roundId: RoundId | undefined;
  /** The full decode (undefined when the bytes do not decode). */
  decoded(): QbftMessage | undefined;
}

export interface RoundId {
  sequence: number;
  round: number;
}

/** What to send for one outgoing message: the same list to every peer, or a list per peer. */
export type Plan = WireMessage[] | ((to: PeerId) => WireMessage[]);

export interface Behaviour {
  /** Message codes whose copies (incoming, and own outgoing unless observesOwn is false) the memory decodes and keeps. */
  observes?: readonly number[];
  observesOwn?: boolean;
  /** Keep the raw recent messages (for replaying). */
  keepsRecent?: boolean;
  plan(kit: ByzantineKit, out: Outgoing): Plan;
  /** Called for each decoded incoming message the behaviour observes; returns messages to send to every peer. */
  onIncoming?(kit: ByzantineKit, message: QbftMessage): WireMessage[];
  /** What to send for an eth message the node sends; without it, eth messages pass untouched. */
  planEth?(kit: ByzantineKit, message: WireMessage): Plan;
}

const COINBASE_INDEX = 2;
const EXTRA_DATA_INDEX = 12;

export const istanbul = (code: number, data: Uint8Array): WireMessage => ({ protocol: 'istanbul', code, data });

/** The signed part of a message: the whole message for PREPARE/COMMIT, the first item otherwise. */
function signedItem(code: number, data: Uint8Array): Uint8Array {
  return code === MessageCode.PREPARE || code === MessageCode.COMMIT ? data : listItems(data)[0];
}

function scalar(raw: Uint8Array): number {
  return Number(bytesToBigInt(stringOf(raw, 'scalar')));
}

/** Height and round of a message without recovering any signature; undefined when malformed. */
export function peekRoundId(code: number, data: Uint8Array): RoundId | undefined {
  try {
    const signed = signedItem(code, data);
    const payload = listItems(signed)[0];
    if (!isList(payload)) return undefined;
    const [sequence, round] = listItems(payload);
    return { sequence: scalar(sequence), round: scalar(round) };
  } catch {
    return undefined;
  }
}

export function hashForSignature(code: number, payloadList: Uint8Array): Uint8Array {
  return keccak256(encodeRawList([RLP.encode(intToBytes(code)), payloadList]));
}

/** The author of a message's outer signature (one keccak and a cache lookup for own messages). */
export function authorOf(code: number, data: Uint8Array): Hex | undefined {
  try {
    const [payloadList, signature] = listItems(signedItem(code, data));
    return recoverAddressCached(hashForSignature(code, payloadList), stringOf(signature, 'signature'));
  } catch {
    return undefined;
  }
}

export function tryDecode(code: number, data: Uint8Array): QbftMessage | undefined {
  try {
    return decodeMessage(code, data);
  } catch {
    return undefined;
  }
}

/** SignedData [payloadList, signature] over any payload list, well-formed or not. */
export function signRaw(code: number, payloadItems: Uint8Array[], privateKey: Uint8Array): Uint8Array {
  const payloadList = encodeRawList(payloadItems);
  const signature = signRemembered(hashForSignature(code, payloadList), privateKey);
  return encodeRawList([payloadList, RLP.encode(signature)]);
}

export const rlpScalar = (value: number | bigint): Uint8Array => RLP.encode(intToBytes(value));
export const rlpBytes = (value: Uint8Array): Uint8Array => RLP.encode(value);

/** The digest QBFT messages name a block by (committed-seal hash with the block's own round). */
export function blockDigest(blockRlp: Uint8Array, common: Common): Hex {
  return bytesToHex(committedSealHash(blockFromRlp(blockRlp, common).header));
}

export function blockCoinbase(blockRlp: Uint8Array, common: Common): Hex {
  return blockFromRlp(blockRlp, common).header.coinbase.toString().toLowerCase() as Hex;
}

/**
 * The same block with a different vanity (and optionally another round in its extraData, or
 * another coinbase): a different digest. It stays valid as long as the changed fields do not
 * enter execution (the vanity and round never do; the coinbase does once it earns fees or rewards).
 */
export function variantBlock(blockRlp: Uint8Array, common: Common, opts: { round?: number; flip?: boolean; coinbase?: Hex } = {}): Uint8Array {
  const block = blockFromRlp(blockRlp, common);
  const extra = extraDataOf(block.header);
  const vanity = extra.vanity.slice();
  if (opts.flip ?? true) vanity[0] ^= 0xff;
  const raw = block.raw();
  const header = [...raw[0]];
  header[EXTRA_DATA_INDEX] = encodeExtraData({ ...extra, vanity, round: opts.round ?? extra.round });
  if (opts.coinbase) header[COINBASE_INDEX] = hexToBytes(opts.coinbase);
  raw[0] = header;
  return blockToRlp(blockFromValues(raw, common));
}

/** The i-th key no validator holds, for messages and seals "signed by another key". */
export function forgerKey(i: number): Uint8Array {
  return keccak256(new TextEncoder().encode(`qbft-lab/byzantine-forger/${i}`));
}

export const FORGER_KEY = forgerKey(0);

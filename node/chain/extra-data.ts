/**
 * QBFT header extraData (Besu's QbftExtraDataCodec): RLP [vanity, [validators], vote, round, [seals]],
 * vote = [] or [recipient, 0xff (add) | 0x80 (drop)], round an RLP scalar.
 */
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, bytesToHex, hexToBytes, intToBytes, type Hex } from '../crypto/bytes.ts';

export interface Vote {
  recipient: Hex;
  add: boolean;
}

export interface QbftExtraData {
  vanity: Uint8Array;
  validators: Hex[];
  vote?: Vote;
  round: number;
  seals: Uint8Array[];
}

const VANITY_LENGTH = 32;
const ADD_BYTE = 0xff;
const DROP_BYTE = 0x00;
const MAX_ROUND = 0x7fffffff;

function addressBytes(address: Hex): Uint8Array {
  const bytes = hexToBytes(address);
  if (bytes.length !== 20) throw new Error(`extraData: address must be 20 bytes: ${address}`);
  return bytes;
}

export function encodeExtraData(e: QbftExtraData): Uint8Array {
  if (!Number.isInteger(e.round) || e.round < 0 || e.round > MAX_ROUND) throw new Error(`extraData: invalid round ${e.round}`);
  const vote = e.vote ? [addressBytes(e.vote.recipient), e.vote.add ? Uint8Array.of(ADD_BYTE) : new Uint8Array(0)] : [];
  return RLP.encode([e.vanity, e.validators.map(addressBytes), vote, intToBytes(e.round), e.seals]);
}

function bytesItem(item: unknown, what: string): Uint8Array {
  if (!(item instanceof Uint8Array)) throw new Error(`extraData: ${what} must be a byte string`);
  return item;
}

function listItem(item: unknown, what: string): unknown[] {
  if (!Array.isArray(item)) throw new Error(`extraData: ${what} must be a list`);
  return item;
}

function address(item: unknown, what: string): Hex {
  const bytes = bytesItem(item, what);
  if (bytes.length !== 20) throw new Error(`extraData: ${what} must be 20 bytes, got ${bytes.length}`);
  return bytesToHex(bytes);
}

function decodeVote(item: unknown): Vote | undefined {
  const list = listItem(item, 'vote');
  if (list.length === 0) return undefined;
  if (list.length !== 2) throw new Error(`extraData: vote must have 2 items, got ${list.length}`);
  const recipient = address(list[0], 'vote recipient');
  const type = bytesItem(list[1], 'vote type');
  // Besu writes DROP as an empty string (writeNull) and reads it as the byte 0x00.
  if (type.length === 0 || (type.length === 1 && type[0] === DROP_BYTE)) return { recipient, add: false };
  if (type.length === 1 && type[0] === ADD_BYTE) return { recipient, add: true };
  throw new Error(`extraData: invalid vote type ${bytesToHex(type)}`);
}

function decodeRound(item: unknown): number {
  const bytes = bytesItem(item, 'round');
  if (bytes.length > 4) throw new Error('extraData: round does not fit in 4 bytes');
  let value: bigint;
  try {
    value = bytesToBigInt(bytes);
  } catch {
    throw new Error('extraData: round has a leading zero byte');
  }
  if (value > BigInt(MAX_ROUND)) throw new Error('extraData: round out of range');
  return Number(value);
}

export function decodeExtraData(bytes: Uint8Array): QbftExtraData {
  let decoded: unknown;
  try {
    decoded = RLP.decode(bytes);
  } catch (err) {
    throw new Error(`extraData: invalid RLP: ${(err as Error).message}`);
  }
  const items = listItem(decoded, 'extraData');
  // Besu's leaveListLenient: items after the seals are ignored.
  if (items.length < 5) throw new Error(`extraData: expected 5 items, got ${items.length}`);
  const vanity = bytesItem(items[0], 'vanity');
  const validators = listItem(items[1], 'validators').map((v, i) => address(v, `validator ${i}`));
  const vote = decodeVote(items[2]);
  const round = decodeRound(items[3]);
  const seals = listItem(items[4], 'seals').map((s, i) => {
    const seal = bytesItem(s, `seal ${i}`);
    if (seal.length !== 65) throw new Error(`extraData: seal ${i} must be 65 bytes, got ${seal.length}`);
    return seal;
  });
  return vote ? { vanity, validators, vote, round, seals } : { vanity, validators, round, seals };
}

export function encodeExtraDataFromAddresses(validators: Hex[]): Uint8Array {
  return encodeExtraData({ vanity: new Uint8Array(VANITY_LENGTH), validators, round: 0, seals: [] });
}

export function vanityFrom(text: Uint8Array): Uint8Array {
  const out = new Uint8Array(VANITY_LENGTH);
  const n = Math.min(text.length, VANITY_LENGTH);
  out.set(text.subarray(0, n), VANITY_LENGTH - n);
  return out;
}

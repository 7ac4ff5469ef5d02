/**
 * Besu's private transaction (EEA): RLP [nonce, gasPrice, gasLimit, to, value, data, v, r, s,
 * privateFrom, privateFor (a list of keys) | privacyGroupId, restriction], signed like a legacy
 * transaction (EIP-155 when v >= 37) over the same fields with the privacy fields appended
 * (besu 25.4: ethereum/core/.../privacy/PrivateTransaction.java). Privacy keys are 32-byte
 * public keys of the private transaction manager, shown in base64; `restriction` is the text
 * "restricted" or "unrestricted".
 */
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, bytesToHex, concatBytes, hexToBytes, intToBytes, uint256ToBytes, type Hex } from '../crypto/bytes.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { recoverAddress, sign } from '../crypto/secp256k1.ts';

export type Restriction = 'restricted' | 'unrestricted';

export interface PrivateTransactionFields {
  nonce: bigint;
  gasPrice: bigint;
  gasLimit: bigint;
  /** undefined: a contract creation. */
  to?: Hex;
  value: bigint;
  data: Uint8Array;
  /** 32 bytes: the sender's privacy key. */
  privateFrom: Uint8Array;
  /** The other members' keys (an EEA-style group), or... */
  privateFor?: Uint8Array[];
  /** ...the 32-byte id of a privacy group created beforehand. */
  privacyGroupId?: Uint8Array;
  restriction: Restriction | 'unsupported';
  /** Present on EIP-155 signed transactions. */
  chainId?: bigint;
}

export interface PrivateTransaction extends PrivateTransactionFields {
  v: bigint;
  r: bigint;
  s: bigint;
  sender: Hex;
  /** keccak256 of the encoding: the private transaction's hash. */
  hash: Hex;
  encoded: Uint8Array;
}

export class PrivateTransactionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrivateTransactionError';
  }
}

const MAX_PRIVATE_FOR = 1024;
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const scalar = intToBytes;
const restrictionBytes = (r: PrivateTransactionFields['restriction']): Uint8Array => new TextEncoder().encode(r === 'unsupported' ? '' : r);

function privacyFields(f: PrivateTransactionFields): Array<Uint8Array | Uint8Array[]> {
  const out: Array<Uint8Array | Uint8Array[]> = [f.privateFrom];
  if (f.privateFor !== undefined) out.push(f.privateFor);
  else if (f.privacyGroupId !== undefined) out.push(f.privacyGroupId);
  out.push(restrictionBytes(f.restriction));
  return out;
}

function baseFields(f: PrivateTransactionFields): Uint8Array[] {
  return [scalar(f.nonce), scalar(f.gasPrice), scalar(f.gasLimit), f.to ? hexToBytes(f.to) : new Uint8Array(0), scalar(f.value), f.data];
}

/** The hash the sender signs. */
export function signingHash(f: PrivateTransactionFields): Uint8Array {
  const replay = f.chainId !== undefined ? [scalar(f.chainId), new Uint8Array(0), new Uint8Array(0)] : [];
  return keccak256(RLP.encode([...baseFields(f), ...replay, ...privacyFields(f)] as never));
}

export function signPrivateTransaction(f: PrivateTransactionFields, privateKey: Uint8Array): PrivateTransaction {
  const sig = sign(signingHash(f), privateKey);
  const recId = BigInt(sig[64]!);
  const v = f.chainId !== undefined ? recId + 35n + 2n * f.chainId : recId + 27n;
  return finish(f, v, bytesToBigInt(sig.subarray(0, 32)), bytesToBigInt(sig.subarray(32, 64)));
}

function finish(f: PrivateTransactionFields, v: bigint, r: bigint, s: bigint): PrivateTransaction {
  const encoded = RLP.encode([...baseFields(f), scalar(v), scalar(r), scalar(s), ...privacyFields(f)] as never);
  const recId = f.chainId !== undefined ? v - 35n - 2n * f.chainId : v - 27n;
  if (recId !== 0n && recId !== 1n) throw new PrivateTransactionError(`invalid signature v ${v}`);
  if (r <= 0n || r >= SECP256K1_N || s <= 0n || s > SECP256K1_N / 2n) throw new PrivateTransactionError('invalid signature r or s');
  const signature = concatBytes(uint256ToBytes(r), uint256ToBytes(s), new Uint8Array([Number(recId)]));
  let sender: Hex;
  try {
    sender = recoverAddress(signingHash(f), signature);
  } catch (e) {
    throw new PrivateTransactionError(`cannot recover the sender: ${(e as Error).message}`);
  }
  return { ...f, v, r, s, sender, hash: bytesToHex(keccak256(encoded)), encoded };
}

/** Decodes and checks a signed private transaction; throws PrivateTransactionError. */
export function decodePrivateTransaction(bytes: Uint8Array): PrivateTransaction {
  let items: unknown;
  try {
    items = RLP.decode(bytes);
  } catch (e) {
    throw new PrivateTransactionError(`not RLP: ${(e as Error).message}`);
  }
  if (!Array.isArray(items) || items.length !== 12) throw new PrivateTransactionError('a private transaction is a list of 12 items');
  const [nonce, gasPrice, gasLimit, to, value, data, v, r, s, privateFrom, forOrGroup, restriction] = items as Array<Uint8Array | Uint8Array[]>;
  const bytesAt = (x: Uint8Array | Uint8Array[], what: string): Uint8Array => {
    if (!(x instanceof Uint8Array)) throw new PrivateTransactionError(`${what} must be bytes`);
    return x;
  };
  const num = (x: Uint8Array | Uint8Array[], what: string, maxBytes = 32): bigint => {
    const b = bytesAt(x, what);
    if (b.length > maxBytes || (b.length > 0 && b[0] === 0)) throw new PrivateTransactionError(`${what} is not a canonical scalar`);
    return bytesToBigInt(b);
  };
  const toBytes = bytesAt(to, 'to');
  if (toBytes.length !== 0 && toBytes.length !== 20) throw new PrivateTransactionError('to must be empty or 20 bytes');
  const vValue = num(v, 'v');
  const chainId = vValue >= 37n ? (vValue - 35n) / 2n : undefined;
  const restrictionText = new TextDecoder().decode(bytesAt(restriction, 'restriction'));
  const fields: PrivateTransactionFields = {
    nonce: num(nonce, 'nonce', 8),
    gasPrice: num(gasPrice, 'gasPrice'),
    gasLimit: num(gasLimit, 'gasLimit', 8),
    to: toBytes.length === 0 ? undefined : bytesToHex(toBytes),
    value: num(value, 'value'),
    data: bytesAt(data, 'data'),
    privateFrom: bytesAt(privateFrom, 'privateFrom'),
    restriction: restrictionText === 'restricted' || restrictionText === 'unrestricted' ? restrictionText : 'unsupported',
    chainId,
  };
  if (Array.isArray(forOrGroup)) {
    if (forOrGroup.length > MAX_PRIVATE_FOR) throw new PrivateTransactionError(`privateFor has more than ${MAX_PRIVATE_FOR} keys`);
    fields.privateFor = forOrGroup.map((k) => bytesAt(k, 'privateFor'));
  } else fields.privacyGroupId = forOrGroup;
  return finish(fields, vValue, num(r, 'r'), num(s, 's'));
}

export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

/** Strict base64 of `size` bytes, or undefined. */
export function fromBase64(text: unknown, size = 32): Uint8Array | undefined {
  if (typeof text !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  const bytes = new Uint8Array(Buffer.from(text, 'base64'));
  return bytes.length === size ? bytes : undefined;
}

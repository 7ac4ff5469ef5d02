/**
 * Ethereum Node Records (EIP-778) with the "v4" identity scheme, as far as discovery v4 needs
 * them: build and sign the local record (answer to ENRRequest), and decode and verify a record
 * received in an ENRResponse.
 *
 * record = [signature(64: r || s), seq, k1, v1, k2, v2, ...], keys sorted and unique,
 * signature over keccak256(rlp([seq, k1, v1, ...])), at most 300 bytes encoded.
 */
import { RLP, type NestedUint8Array } from '@ethereumjs/rlp';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToBigInt, compareBytes, intToBytes, utf8ToBytes } from '../../crypto/bytes.ts';
import { bytesToIp, ipToBytes } from './ip-address.ts';

export const MAX_ENR_BYTES = 300;

type RlpItem = Uint8Array | NestedUint8Array;

export interface LocalEnrFields {
  privateKey: Uint8Array;
  seq: bigint;
  /** IPv4 or IPv6 literal; stored under "ip" or "ip6". Omitted when undefined. */
  ip?: string;
  tcpPort?: number;
  udpPort?: number;
}

export interface DecodedEnr {
  seq: bigint;
  /** The 64-byte node id (uncompressed public key without 0x04) of the "secp256k1" entry. */
  nodeId: Uint8Array;
  /** Every key/value pair, keys as text (binary keys are latin1-decoded). */
  pairs: Map<string, RlpItem>;
  ip?: string;
  tcpPort?: number;
  udpPort?: number;
  /** The record's canonical RLP encoding. */
  encoded: Uint8Array;
}

const textDecoder = new TextDecoder('latin1');

function portBytes(port: number): Uint8Array {
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`port ${port} is out of range`);
  return intToBytes(port);
}

/** Builds and signs a "v4" record. */
export function encodeEnr(fields: LocalEnrFields): Uint8Array {
  const entries: Array<[string, Uint8Array]> = [
    ['id', utf8ToBytes('v4')],
    ['secp256k1', secp256k1.getPublicKey(fields.privateKey, true)],
  ];
  if (fields.ip !== undefined) {
    const ip = ipToBytes(fields.ip);
    if (!ip) throw new Error(`ENR ip ${JSON.stringify(fields.ip)} is not an IP address`);
    entries.push([ip.length === 4 ? 'ip' : 'ip6', ip]);
  }
  if (fields.tcpPort !== undefined) entries.push(['tcp', portBytes(fields.tcpPort)]);
  if (fields.udpPort !== undefined) entries.push(['udp', portBytes(fields.udpPort)]);
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const content: Uint8Array[] = [intToBytes(fields.seq)];
  for (const [k, v] of entries) content.push(utf8ToBytes(k), v);
  const hash = keccak_256(RLP.encode(content));
  const signature = secp256k1.sign(hash, fields.privateKey, { prehash: false, lowS: true, format: 'compact' });
  const encoded = RLP.encode([signature, ...content]);
  if (encoded.length > MAX_ENR_BYTES) throw new Error(`ENR is ${encoded.length} bytes, over ${MAX_ENR_BYTES}`);
  return encoded;
}

function readPort(v: RlpItem | undefined): number | undefined {
  if (!(v instanceof Uint8Array) || v.length > 2) return undefined;
  return Number(bytesToBigInt(v));
}

/**
 * Decodes an already RLP-decoded record and verifies its "v4" signature. Returns a reason string
 * when the record is malformed, too large, unsorted, not "v4" or wrongly signed.
 */
export function decodeEnrItem(item: RlpItem): DecodedEnr | string {
  if (!Array.isArray(item)) return 'ENR is not a list';
  const encoded = RLP.encode(item);
  if (encoded.length > MAX_ENR_BYTES) return `ENR is ${encoded.length} bytes, over ${MAX_ENR_BYTES}`;
  if (item.length < 2 || item.length % 2 !== 0) return 'ENR must hold a signature, a seq and key/value pairs';
  const [signature, seqBytes] = item;
  if (!(signature instanceof Uint8Array) || !(seqBytes instanceof Uint8Array) || seqBytes.length > 8) return 'ENR signature or seq malformed';
  const pairs = new Map<string, RlpItem>();
  let previousKey: Uint8Array | undefined;
  for (let i = 2; i < item.length; i += 2) {
    const key = item[i];
    if (!(key instanceof Uint8Array)) return 'ENR key is not a byte string';
    if (previousKey && compareBytes(previousKey, key) >= 0) return 'ENR keys are not sorted and unique';
    previousKey = key;
    pairs.set(textDecoder.decode(key), item[i + 1]!);
  }
  const id = pairs.get('id');
  if (!(id instanceof Uint8Array) || textDecoder.decode(id) !== 'v4') return 'ENR identity scheme is not v4';
  const compressed = pairs.get('secp256k1');
  if (!(compressed instanceof Uint8Array) || compressed.length !== 33) return 'ENR has no 33-byte secp256k1 key';
  let nodeId: Uint8Array;
  try {
    nodeId = secp256k1.Point.fromBytes(compressed).toBytes(false).subarray(1);
  } catch {
    return 'ENR secp256k1 key is not a curve point';
  }
  if (signature.length !== 64) return 'ENR signature is not 64 bytes';
  const hash = keccak_256(RLP.encode(item.slice(1)));
  let valid = false;
  try {
    valid = secp256k1.verify(signature, hash, compressed, { prehash: false, lowS: true, format: 'compact' });
  } catch {
    valid = false;
  }
  if (!valid) return 'ENR signature does not verify';

  const decoded: DecodedEnr = { seq: bytesToBigInt(seqBytes), nodeId, pairs, encoded };
  const ipItem = pairs.get('ip') ?? pairs.get('ip6');
  if (ipItem instanceof Uint8Array) decoded.ip = bytesToIp(ipItem);
  decoded.tcpPort = readPort(pairs.get('tcp'));
  decoded.udpPort = readPort(pairs.get('udp'));
  return decoded;
}

/** Decodes and verifies a record from its RLP bytes. */
export function decodeEnr(bytes: Uint8Array): DecodedEnr | string {
  if (bytes.length > MAX_ENR_BYTES) return `ENR is ${bytes.length} bytes, over ${MAX_ENR_BYTES}`;
  let item: RlpItem;
  try {
    item = RLP.decode(bytes);
  } catch (e) {
    return `ENR is not valid RLP (${(e as Error).message})`;
  }
  return decodeEnrItem(item);
}

/** The textual form "enr:<base64url>" (no padding). */
export function enrToText(encoded: Uint8Array): string {
  return `enr:${Buffer.from(encoded).toString('base64url')}`;
}

export function enrFromText(text: string): Uint8Array {
  if (!text.startsWith('enr:')) throw new Error('ENR text must start with "enr:"');
  return new Uint8Array(Buffer.from(text.slice(4), 'base64url'));
}

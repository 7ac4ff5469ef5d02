/**
 * Node discovery v4 packets (devp2p discv4.md, EIP-8, EIP-868):
 *
 *   packet = hash(32) || signature(65: r || s || recovery id) || packet-type(1) || rlp(packet-data)
 *   hash = keccak256(signature || packet-type || packet-data)
 *   signature = sign(keccak256(packet-type || packet-data)) with the sender's node key
 *
 * Decoding never throws: it returns a reason when a packet is too short or too long, the hash does
 * not match, the signature does not recover, the type is unknown, the RLP is malformed or the
 * packet has expired. Following EIP-8 it ignores the Ping version, extra list elements and any
 * bytes after the packet-data list.
 */
import { RLP, type NestedUint8Array } from '@ethereumjs/rlp';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToBigInt, concatBytes, equalBytes, intToBytes } from '../../crypto/bytes.ts';
import { decodeEnrItem, type DecodedEnr } from './enr.ts';
import { bytesToIp, ipToBytes } from './ip-address.ts';

export const MAX_PACKET_BYTES = 1280;
const HASH_BYTES = 32;
const SIGNATURE_BYTES = 65;
const TYPE_OFFSET = HASH_BYTES + SIGNATURE_BYTES;
export const HEADER_BYTES = TYPE_OFFSET + 1;
export const NODE_ID_BYTES = 64;
/** Neighbours replies carry at most this many nodes in total (Kademlia k). */
export const MAX_NEIGHBOURS = 16;

export const PING_VERSION = 4;

export const PacketType = {
  Ping: 1,
  Pong: 2,
  FindNode: 3,
  Neighbours: 4,
  EnrRequest: 5,
  EnrResponse: 6,
} as const;

type RlpItem = Uint8Array | NestedUint8Array;

/** An endpoint as discovery carries it. `ip` is undefined when the sender left it empty. */
export interface Endpoint {
  ip?: string;
  udpPort: number;
  tcpPort: number;
}

export interface PingMessage {
  type: 'ping';
  version: number;
  /** The sender's own idea of its endpoint; undefined when malformed (it is advisory only). */
  from?: Endpoint;
  /** The recipient's endpoint as the sender sees it; undefined when malformed. */
  to?: Endpoint;
  /** Unix time in seconds after which the packet must be ignored. */
  expiration: number;
  enrSeq?: bigint;
}

export interface PongMessage {
  type: 'pong';
  to?: Endpoint;
  pingHash: Uint8Array;
  expiration: number;
  enrSeq?: bigint;
}

export interface FindNodeMessage {
  type: 'findNode';
  target: Uint8Array;
  expiration: number;
}

export interface NeighbourNode {
  ip: string;
  udpPort: number;
  tcpPort: number;
  nodeId: Uint8Array;
}

export interface NeighboursMessage {
  type: 'neighbours';
  nodes: NeighbourNode[];
  expiration: number;
}

export interface EnrRequestMessage {
  type: 'enrRequest';
  expiration: number;
}

export interface EnrResponseMessage {
  type: 'enrResponse';
  requestHash: Uint8Array;
  /** The sender's record; decoding checks it is signed by the key that signed the packet. */
  enr: DecodedEnr;
}

export type DiscoveryMessage =
  | PingMessage
  | PongMessage
  | FindNodeMessage
  | NeighboursMessage
  | EnrRequestMessage
  | EnrResponseMessage;

/** What encoding takes: an ENRResponse carries its record already encoded. */
export type OutgoingMessage =
  | PingMessage
  | PongMessage
  | FindNodeMessage
  | NeighboursMessage
  | EnrRequestMessage
  | { type: 'enrResponse'; requestHash: Uint8Array; enr: Uint8Array };

export interface DecodedPacket {
  /** The packet hash (its first 32 bytes); a Pong echoes it for a Ping. */
  hash: Uint8Array;
  /** The sender's 64-byte node id, recovered from the signature. */
  senderId: Uint8Array;
  message: DiscoveryMessage;
}

export type DecodeResult = { ok: true; packet: DecodedPacket } | { ok: false; reason: string };

export interface EncodedPacket {
  bytes: Uint8Array;
  hash: Uint8Array;
}

const TYPE_OF: Record<DiscoveryMessage['type'], number> = {
  ping: PacketType.Ping,
  pong: PacketType.Pong,
  findNode: PacketType.FindNode,
  neighbours: PacketType.Neighbours,
  enrRequest: PacketType.EnrRequest,
  enrResponse: PacketType.EnrResponse,
};

// ---- encoding -----------------------------------------------------------------------------------

function encodePort(port: number): Uint8Array {
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`port ${port} is out of range 0-65535`);
  return intToBytes(port);
}

function encodeIp(ip: string | undefined): Uint8Array {
  if (ip === undefined) return new Uint8Array(0);
  const bytes = ipToBytes(ip);
  if (!bytes) throw new Error(`${JSON.stringify(ip)} is not an IP address`);
  return bytes;
}

function encodeEndpoint(e: Endpoint | undefined): Uint8Array[] {
  if (!e) return [new Uint8Array(0), new Uint8Array(0), new Uint8Array(0)];
  return [encodeIp(e.ip), encodePort(e.udpPort), encodePort(e.tcpPort)];
}

function encodeNode(n: NeighbourNode): Uint8Array[] {
  if (n.nodeId.length !== NODE_ID_BYTES) throw new Error(`node id must be ${NODE_ID_BYTES} bytes`);
  return [encodeIp(n.ip), encodePort(n.udpPort), encodePort(n.tcpPort), n.nodeId];
}

function encodeExpiration(seconds: number): Uint8Array {
  if (!Number.isSafeInteger(seconds) || seconds < 0) throw new Error(`expiration ${seconds} is not a non-negative integer`);
  return intToBytes(seconds);
}

function encodeData(m: OutgoingMessage): RlpItem {
  switch (m.type) {
    case 'ping': {
      const items: RlpItem[] = [intToBytes(m.version), encodeEndpoint(m.from), encodeEndpoint(m.to), encodeExpiration(m.expiration)];
      if (m.enrSeq !== undefined) items.push(intToBytes(m.enrSeq));
      return items;
    }
    case 'pong': {
      if (m.pingHash.length !== HASH_BYTES) throw new Error('ping hash must be 32 bytes');
      const items: RlpItem[] = [encodeEndpoint(m.to), m.pingHash, encodeExpiration(m.expiration)];
      if (m.enrSeq !== undefined) items.push(intToBytes(m.enrSeq));
      return items;
    }
    case 'findNode':
      if (m.target.length !== NODE_ID_BYTES) throw new Error(`FindNode target must be ${NODE_ID_BYTES} bytes`);
      return [m.target, encodeExpiration(m.expiration)];
    case 'neighbours':
      return [m.nodes.map(encodeNode), encodeExpiration(m.expiration)];
    case 'enrRequest':
      return [encodeExpiration(m.expiration)];
    case 'enrResponse':
      if (m.requestHash.length !== HASH_BYTES) throw new Error('request hash must be 32 bytes');
      return [m.requestHash, RLP.decode(m.enr)];
  }
}

function signPacket(type: number, data: Uint8Array, privateKey: Uint8Array): EncodedPacket {
  const typeAndData = concatBytes(Uint8Array.of(type), data);
  // noble's 'recovered' format puts the recovery byte first; the wire wants r || s || v.
  const recovered = secp256k1.sign(keccak_256(typeAndData), privateKey, { prehash: false, lowS: true, format: 'recovered' });
  const signature = concatBytes(recovered.subarray(1), recovered.subarray(0, 1));
  const signed = concatBytes(signature, typeAndData);
  const hash = keccak_256(signed);
  const bytes = concatBytes(hash, signed);
  if (bytes.length > MAX_PACKET_BYTES) throw new Error(`packet is ${bytes.length} bytes, over ${MAX_PACKET_BYTES}`);
  return { bytes, hash };
}

/** Encodes and signs one packet; throws on invalid fields or when it exceeds 1280 bytes. */
export function encodePacket(message: OutgoingMessage, privateKey: Uint8Array): EncodedPacket {
  return signPacket(TYPE_OF[message.type], RLP.encode(encodeData(message)), privateKey);
}

/**
 * Neighbours packets for `nodes` (at most 16), each filled with as many nodes as fit in 1280
 * bytes. An empty list gives one packet with no nodes.
 */
export function encodeNeighbours(nodes: NeighbourNode[], expiration: number, privateKey: Uint8Array): EncodedPacket[] {
  if (nodes.length > MAX_NEIGHBOURS) throw new Error(`at most ${MAX_NEIGHBOURS} neighbours per reply`);
  const exp = encodeExpiration(expiration);
  const sizeOf = (chunk: Uint8Array[][]) => HEADER_BYTES + RLP.encode([chunk, exp]).length;
  const chunks: Uint8Array[][][] = [];
  let current: Uint8Array[][] = [];
  for (const node of nodes) {
    const encoded = encodeNode(node);
    if (current.length > 0 && sizeOf([...current, encoded]) > MAX_PACKET_BYTES) {
      chunks.push(current);
      current = [];
    }
    current.push(encoded);
  }
  if (current.length > 0 || chunks.length === 0) chunks.push(current);
  return chunks.map((chunk) => signPacket(PacketType.Neighbours, RLP.encode([chunk, exp]), privateKey));
}

// ---- decoding -----------------------------------------------------------------------------------

class PacketFormatError extends Error {}

function reject(reason: string): never {
  throw new PacketFormatError(reason);
}

function asList(v: RlpItem | undefined, what: string, minItems: number): RlpItem[] {
  if (!Array.isArray(v)) reject(`${what} is not a list`);
  if (v.length < minItems) reject(`${what} has ${v.length} items, expected at least ${minItems}`);
  return v;
}

function asBytes(v: RlpItem | undefined, what: string): Uint8Array {
  if (!(v instanceof Uint8Array)) reject(`${what} is not a byte string`);
  return v;
}

/** An unsigned integer of at most `maxBytes` bytes (leading zeros tolerated). */
function asUint(v: RlpItem | undefined, what: string, maxBytes: number): bigint {
  const b = asBytes(v, what);
  if (b.length > maxBytes) reject(`${what} is wider than ${maxBytes} bytes`);
  return bytesToBigInt(b);
}

function asPort(v: RlpItem | undefined, what: string): number {
  const n = asUint(v, what, 8);
  if (n > 65535n) reject(`${what} ${n} is out of range`);
  return Number(n);
}

function asIp(v: RlpItem | undefined, what: string): string | undefined {
  const b = asBytes(v, what);
  if (b.length === 0) return undefined;
  const ip = bytesToIp(b);
  if (ip === undefined) reject(`${what} is ${b.length} bytes, expected 4 or 16`);
  return ip;
}

function decodeEndpoint(v: RlpItem | undefined, what: string): Endpoint {
  const items = asList(v, what, 2);
  const endpoint: Endpoint = { udpPort: asPort(items[1], `${what} udp port`), tcpPort: items.length > 2 ? asPort(items[2], `${what} tcp port`) : 0 };
  const ip = asIp(items[0], `${what} ip`);
  if (ip !== undefined) endpoint.ip = ip;
  return endpoint;
}

/** Ping's endpoints are advisory (the UDP source address is what counts), so a bad one is dropped. */
function maybeEndpoint(v: RlpItem | undefined, what: string): Endpoint | undefined {
  try {
    return decodeEndpoint(v, what);
  } catch (e) {
    if (e instanceof PacketFormatError) return undefined;
    throw e;
  }
}

/** EIP-868's optional enr-seq; anything that is not a 64-bit integer counts as absent (EIP-8). */
function maybeEnrSeq(v: RlpItem | undefined): bigint | undefined {
  if (!(v instanceof Uint8Array) || v.length > 8) return undefined;
  return bytesToBigInt(v);
}

function decodeExpiration(v: RlpItem | undefined, nowSeconds: number): number {
  const exp = asUint(v, 'expiration', 8);
  if (exp < BigInt(Math.floor(nowSeconds))) reject(`expired (expiration ${exp} < now ${Math.floor(nowSeconds)})`);
  return Number(exp);
}

function decodeNeighbourNode(v: RlpItem): NeighbourNode | undefined {
  if (!Array.isArray(v) || v.length < 4) return undefined;
  const [ipBytes, udp, tcp, id] = v;
  if (!(ipBytes instanceof Uint8Array) || !(id instanceof Uint8Array) || id.length !== NODE_ID_BYTES) return undefined;
  if (!(udp instanceof Uint8Array) || !(tcp instanceof Uint8Array) || udp.length > 2 || tcp.length > 2) return undefined;
  const ip = bytesToIp(ipBytes);
  if (ip === undefined) return undefined;
  return { ip, udpPort: Number(bytesToBigInt(udp)), tcpPort: Number(bytesToBigInt(tcp)), nodeId: id };
}

function decodeData(type: number, data: RlpItem, nowSeconds: number, senderId: Uint8Array): DiscoveryMessage {
  switch (type) {
    case PacketType.Ping: {
      const items = asList(data, 'Ping', 4);
      const version = asUint(items[0], 'Ping version', 6);
      const message: PingMessage = { type: 'ping', version: Number(version), expiration: decodeExpiration(items[3], nowSeconds) };
      const from = maybeEndpoint(items[1], 'Ping from');
      const to = maybeEndpoint(items[2], 'Ping to');
      const enrSeq = maybeEnrSeq(items[4]);
      if (from) message.from = from;
      if (to) message.to = to;
      if (enrSeq !== undefined) message.enrSeq = enrSeq;
      return message;
    }
    case PacketType.Pong: {
      const items = asList(data, 'Pong', 3);
      const pingHash = asBytes(items[1], 'Pong ping-hash');
      if (pingHash.length !== HASH_BYTES) reject(`Pong ping-hash is ${pingHash.length} bytes`);
      const message: PongMessage = { type: 'pong', pingHash, expiration: decodeExpiration(items[2], nowSeconds) };
      const to = maybeEndpoint(items[0], 'Pong to');
      const enrSeq = maybeEnrSeq(items[3]);
      if (to) message.to = to;
      if (enrSeq !== undefined) message.enrSeq = enrSeq;
      return message;
    }
    case PacketType.FindNode: {
      const items = asList(data, 'FindNode', 2);
      const target = asBytes(items[0], 'FindNode target');
      if (target.length !== NODE_ID_BYTES) reject(`FindNode target is ${target.length} bytes, expected ${NODE_ID_BYTES}`);
      return { type: 'findNode', target, expiration: decodeExpiration(items[1], nowSeconds) };
    }
    case PacketType.Neighbours: {
      const items = asList(data, 'Neighbours', 2);
      const list = asList(items[0], 'Neighbours nodes', 0);
      const expiration = decodeExpiration(items[1], nowSeconds);
      const nodes: NeighbourNode[] = [];
      for (const item of list) {
        const node = decodeNeighbourNode(item);
        if (node) nodes.push(node);
      }
      return { type: 'neighbours', nodes, expiration };
    }
    case PacketType.EnrRequest: {
      const items = asList(data, 'ENRRequest', 1);
      return { type: 'enrRequest', expiration: decodeExpiration(items[0], nowSeconds) };
    }
    case PacketType.EnrResponse: {
      const items = asList(data, 'ENRResponse', 2);
      const requestHash = asBytes(items[0], 'ENRResponse request-hash');
      if (requestHash.length !== HASH_BYTES) reject(`ENRResponse request-hash is ${requestHash.length} bytes`);
      const enr = decodeEnrItem(items[1]!);
      if (typeof enr === 'string') reject(enr);
      if (!equalBytes(enr.nodeId, senderId)) reject('ENRResponse record is not signed by the packet sender');
      return { type: 'enrResponse', requestHash, enr };
    }
    default:
      reject(`unknown packet type ${type}`);
  }
}

/**
 * Verifies and decodes one datagram. `nowSeconds` is the Unix time against which expiration is
 * checked (pass 0 to accept any expiration, e.g. for old test vectors).
 */
export function decodePacket(bytes: Uint8Array, nowSeconds: number): DecodeResult {
  try {
    if (bytes.length > MAX_PACKET_BYTES) return { ok: false, reason: `packet is ${bytes.length} bytes, over ${MAX_PACKET_BYTES}` };
    if (bytes.length < HEADER_BYTES) return { ok: false, reason: `packet is ${bytes.length} bytes, shorter than a header` };
    const hash = bytes.subarray(0, HASH_BYTES);
    if (!equalBytes(hash, keccak_256(bytes.subarray(HASH_BYTES)))) return { ok: false, reason: 'hash mismatch' };
    const type = bytes[TYPE_OFFSET]!;
    if (type < PacketType.Ping || type > PacketType.EnrResponse) return { ok: false, reason: `unknown packet type ${type}` };

    const signature = bytes.subarray(HASH_BYTES, TYPE_OFFSET);
    const recoveryId = signature[64]!;
    if (recoveryId > 3) return { ok: false, reason: `invalid recovery id ${recoveryId}` };
    let senderId: Uint8Array;
    try {
      const sig = secp256k1.Signature.fromBytes(signature.subarray(0, 64), 'compact').addRecoveryBit(recoveryId);
      senderId = sig.recoverPublicKey(keccak_256(bytes.subarray(TYPE_OFFSET))).toBytes(false).subarray(1);
    } catch {
      return { ok: false, reason: 'signature does not recover a public key' };
    }

    let data: RlpItem;
    try {
      data = (RLP.decode(bytes.subarray(HEADER_BYTES), true) as { data: RlpItem }).data;
    } catch (e) {
      return { ok: false, reason: `invalid RLP (${(e as Error).message})` };
    }
    const message = decodeData(type, data, nowSeconds, senderId);
    return { ok: true, packet: { hash: hash.slice(), senderId, message } };
  } catch (e) {
    if (e instanceof PacketFormatError) return { ok: false, reason: e.message };
    return { ok: false, reason: `undecodable packet (${(e as Error)?.message ?? String(e)})` };
  }
}

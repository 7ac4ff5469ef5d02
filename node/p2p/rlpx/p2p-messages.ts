/**
 * The devp2p "p2p" base protocol messages (devp2p rlpx.md "p2p Capability") and the frame-data
 * layout every message uses: frame-data = RLP(msg-id) || msg-data.
 *   Hello (0x00)      [protocolVersion, clientId, [[cap-name, cap-version], ...], listenPort, nodeId, ...]
 *   Disconnect (0x01) [reason]
 *   Ping (0x02) / Pong (0x03)  []
 * Decoders follow EIP-8: extra list elements are ignored.
 */
import { RLP } from '@ethereumjs/rlp';
import { concatBytes, intToBytes, utf8ToBytes } from '../../crypto/bytes.ts';
import { asBytes, asList, asSafeInt, decodeRlp, fail, type RlpValue } from '../rlp-shape.ts';
import type { Capability } from './capabilities.ts';
import type { DisconnectReasonCode } from './disconnect-reasons.ts';

export const P2P_VERSION = 5;
/** p2p version from which message data is Snappy-compressed (EIP-706). */
export const SNAPPY_P2P_VERSION = 5;

export const P2pCode = { Hello: 0x00, Disconnect: 0x01, Ping: 0x02, Pong: 0x03 } as const;

/** The RLP empty list, the payload of Ping and Pong. */
export const EMPTY_LIST = Uint8Array.of(0xc0);

export interface Hello {
  protocolVersion: number;
  clientId: string;
  capabilities: Capability[];
  listenPort: number;
  /** As sent; the connection checks it is 64 bytes and matches the handshake identity. */
  nodeId: Uint8Array;
}

/** Besu drops a peer whose Hello message data is larger (DeFramer.MAX_HELLO_MESSAGE_SIZE = 2 * 1024). */
export const MAX_HELLO_DATA_BYTES = 2 * 1024;
const MAX_CAPABILITY_NAME_BYTES = 32;

export function encodeHello(hello: Hello): Uint8Array {
  return RLP.encode([
    intToBytes(hello.protocolVersion),
    utf8ToBytes(hello.clientId),
    hello.capabilities.map((c) => [utf8ToBytes(c.name), intToBytes(c.version)]),
    intToBytes(hello.listenPort),
    hello.nodeId,
  ]);
}

/** Decodes Hello message data; throws WireFormatError on a malformed one. */
export function decodeHello(data: Uint8Array): Hello {
  // A Hello may be followed by nothing else in its frame, but a future version may append list items.
  const items = asList(decodeRlp(data, MAX_HELLO_DATA_BYTES, 'hello'), 'hello', 5);
  const caps = asList(items[2], 'hello capabilities').map((c: RlpValue, i): Capability => {
    const pair = asList(c, `hello capability ${i}`, 2);
    return {
      name: new TextDecoder().decode(asBytes(pair[0], `hello capability ${i} name`, MAX_CAPABILITY_NAME_BYTES)),
      version: asSafeInt(pair[1], `hello capability ${i} version`),
    };
  });
  return {
    protocolVersion: asSafeInt(items[0], 'hello protocol version'),
    clientId: new TextDecoder().decode(asBytes(items[1], 'hello client id')),
    capabilities: caps,
    listenPort: asSafeInt(items[3], 'hello listen port'),
    nodeId: asBytes(items[4], 'hello node id'),
  };
}

export function encodeDisconnect(reason: DisconnectReasonCode): Uint8Array {
  return RLP.encode([intToBytes(reason)]);
}

/**
 * The reason of a Disconnect payload. Clients differ: [reason], a bare reason, [] or nothing; all
 * are accepted, and anything unreadable is "no reason" rather than an error, since the peer is leaving.
 */
export function decodeDisconnect(data: Uint8Array): DisconnectReasonCode | undefined {
  if (data.length === 0) return undefined;
  let v: RlpValue;
  try {
    v = RLP.decode(data) as RlpValue;
  } catch {
    return undefined;
  }
  const item = Array.isArray(v) ? v[0] : v;
  if (!(item instanceof Uint8Array)) return undefined;
  if (item.length === 0) return 0;
  if (item.length > 1) return undefined;
  return item[0];
}

/** frame-data for a message: the RLP-encoded id (0 is 0x80) followed by the message data. */
export function encodeFrameData(messageId: number, data: Uint8Array): Uint8Array {
  if (!Number.isSafeInteger(messageId) || messageId < 0) throw new RangeError(`bad message id ${messageId}`);
  return concatBytes(RLP.encode(intToBytes(messageId)), data);
}

/**
 * Splits frame-data into message id and data. Like Besu, a single 0x00 byte is read as id 0 too,
 * besides the canonical 0x80.
 */
export function decodeFrameData(frameData: Uint8Array): { messageId: number; data: Uint8Array } {
  if (frameData.length === 0) fail('empty frame');
  const first = frameData[0];
  if (first < 0x80) return { messageId: first, data: frameData.subarray(1) };
  const idBytes = first - 0x80;
  if (idBytes > 4) fail(`message id prefix 0x${first.toString(16)} is not a small integer`);
  if (frameData.length < 1 + idBytes) fail('truncated message id');
  const raw = frameData.subarray(1, 1 + idBytes);
  if (idBytes > 0 && raw[0] === 0) fail('message id with a leading zero byte');
  if (idBytes === 1 && raw[0] < 0x80) fail('non-canonical message id');
  let messageId = 0;
  for (const b of raw) messageId = messageId * 256 + b;
  return { messageId, data: frameData.subarray(1 + idBytes) };
}

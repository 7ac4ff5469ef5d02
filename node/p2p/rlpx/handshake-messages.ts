/**
 * The RLPx handshake messages (devp2p rlpx.md "Initial Handshake", EIP-8): building and reading
 * `auth` (initiator -> recipient) and `ack` (recipient -> initiator), in the EIP-8 format
 * (size prefix || ECIES(RLP list || padding), the prefix authenticated as shared MAC data) and
 * in the legacy fixed-size format. Pure functions: keys, nonces and ECIES randomness come in.
 */
import { RLP } from '@ethereumjs/rlp';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { concatBytes, equalBytes, intToBytes } from '../../crypto/bytes.ts';
import { keccak256 } from '../../crypto/keccak.ts';
import { asFixedBytes, asList, asUint, type RlpValue } from '../rlp-shape.ts';
import { ECIES_OVERHEAD_BYTES, eciesEncrypt, type EciesRandomness } from './ecies.ts';
import { ecdhX, isValidNodeId, nodeIdFromPrivateKey, NODE_ID_BYTES } from './node-identity.ts';

export type HandshakeFormat = 'eip8' | 'legacy';

export const HANDSHAKE_VERSION = 4;
export const NONCE_BYTES = 32;
const SIGNATURE_BYTES = 65;
/** Plaintext sizes of the legacy (pre-EIP-8) bodies: sig || keccak(eph) || pubk || nonce || flag, and eph || nonce || flag. */
export const LEGACY_AUTH_BODY_BYTES = SIGNATURE_BYTES + 32 + NODE_ID_BYTES + NONCE_BYTES + 1;
export const LEGACY_ACK_BODY_BYTES = NODE_ID_BYTES + NONCE_BYTES + 1;
export const LEGACY_AUTH_PACKET_BYTES = LEGACY_AUTH_BODY_BYTES + ECIES_OVERHEAD_BYTES;
export const LEGACY_ACK_PACKET_BYTES = LEGACY_ACK_BODY_BYTES + ECIES_OVERHEAD_BYTES;

export class HandshakeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HandshakeError';
  }
}

export interface AuthMessage {
  /** r || s || recovery id over (static-shared-secret ^ initiator-nonce), by the ephemeral key. */
  signature: Uint8Array;
  initiatorNodeId: Uint8Array;
  initiatorNonce: Uint8Array;
  version: number;
}

export interface AckMessage {
  recipientEphemeralId: Uint8Array;
  recipientNonce: Uint8Array;
  version: number;
}

/** What the recipient learns from a valid auth. */
export interface ReadAuth extends AuthMessage {
  /** Recovered from the signature; the initiator's ephemeral public key (64 bytes). */
  initiatorEphemeralId: Uint8Array;
}

/** Randomness an encrypted handshake packet consumes. `padding` goes after the EIP-8 RLP body. */
export interface PacketRandomness {
  ecies: EciesRandomness;
  padding: Uint8Array;
}

function xor32(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = a[i] ^ b[i];
  return out;
}

function checkLength(value: Uint8Array, bytes: number, what: string): void {
  if (value.length !== bytes) throw new HandshakeError(`${what} must be ${bytes} bytes, got ${value.length}`);
}

/** The initiator's auth: signs (static-shared-secret ^ nonce) with the ephemeral key. */
export function makeAuth(params: {
  localPrivateKey: Uint8Array;
  remoteNodeId: Uint8Array;
  ephemeralPrivateKey: Uint8Array;
  nonce: Uint8Array;
}): AuthMessage {
  checkLength(params.nonce, NONCE_BYTES, 'nonce');
  const staticShared = ecdhX(params.localPrivateKey, params.remoteNodeId);
  const recovered = secp256k1.sign(xor32(staticShared, params.nonce), params.ephemeralPrivateKey, {
    prehash: false,
    lowS: true,
    format: 'recovered',
  });
  // noble's 'recovered' format puts the recovery byte first; the wire wants r || s || v.
  const signature = concatBytes(recovered.subarray(1), recovered.subarray(0, 1));
  return {
    signature,
    initiatorNodeId: nodeIdFromPrivateKey(params.localPrivateKey),
    initiatorNonce: params.nonce,
    version: HANDSHAKE_VERSION,
  };
}

export function makeAck(params: { ephemeralPrivateKey: Uint8Array; nonce: Uint8Array }): AckMessage {
  checkLength(params.nonce, NONCE_BYTES, 'nonce');
  return {
    recipientEphemeralId: nodeIdFromPrivateKey(params.ephemeralPrivateKey),
    recipientNonce: params.nonce,
    version: HANDSHAKE_VERSION,
  };
}

function encryptPacket(remoteNodeId: Uint8Array, body: Uint8Array, format: HandshakeFormat, randomness: PacketRandomness): Uint8Array {
  if (format === 'legacy') return eciesEncrypt(remoteNodeId, body, randomness.ecies);
  const plaintext = concatBytes(body, randomness.padding);
  const size = plaintext.length + ECIES_OVERHEAD_BYTES;
  if (size > 0xffff) throw new HandshakeError(`EIP-8 handshake packet of ${size} bytes does not fit the 16-bit size prefix`);
  const prefix = Uint8Array.of(size >> 8, size & 0xff);
  return concatBytes(prefix, eciesEncrypt(remoteNodeId, plaintext, randomness.ecies, prefix));
}

/** The auth packet as sent on the wire. For 'legacy' the ephemeral public key is needed for its hash. */
export function encodeAuthPacket(
  auth: AuthMessage,
  initiatorEphemeralId: Uint8Array,
  remoteNodeId: Uint8Array,
  format: HandshakeFormat,
  randomness: PacketRandomness,
): Uint8Array {
  const body =
    format === 'legacy'
      ? concatBytes(auth.signature, keccak256(initiatorEphemeralId), auth.initiatorNodeId, auth.initiatorNonce, Uint8Array.of(0))
      : RLP.encode([auth.signature, auth.initiatorNodeId, auth.initiatorNonce, intToBytes(auth.version)]);
  return encryptPacket(remoteNodeId, body, format, randomness);
}

export function encodeAckPacket(ack: AckMessage, remoteNodeId: Uint8Array, format: HandshakeFormat, randomness: PacketRandomness): Uint8Array {
  const body =
    format === 'legacy'
      ? concatBytes(ack.recipientEphemeralId, ack.recipientNonce, Uint8Array.of(0))
      : RLP.encode([ack.recipientEphemeralId, ack.recipientNonce, intToBytes(ack.version)]);
  return encryptPacket(remoteNodeId, body, format, randomness);
}

/** The leading RLP list of an EIP-8 body; extra list items and trailing padding are ignored as EIP-8 asks. */
function decodeEip8List(plaintext: Uint8Array, minItems: number, what: string): RlpValue[] {
  let decoded: RlpValue;
  try {
    decoded = (RLP.decode(plaintext, true) as { data: RlpValue }).data;
  } catch (e) {
    throw new HandshakeError(`${what}: invalid RLP (${(e as Error).message})`);
  }
  try {
    return asList(decoded, what, minItems);
  } catch (e) {
    throw new HandshakeError((e as Error).message);
  }
}

function shaped<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    throw new HandshakeError((e as Error).message);
  }
}

function versionOf(v: RlpValue, what: string): number {
  // Mismatching versions are ignored (EIP-8); only the shape is checked.
  return shaped(() => Number(asUint(v, what, 4)));
}

function recoverEphemeralId(localPrivateKey: Uint8Array, auth: AuthMessage): Uint8Array {
  if (!isValidNodeId(auth.initiatorNodeId)) throw new HandshakeError('auth: initiator public key is not a secp256k1 point');
  const v = auth.signature[64];
  if (v > 1) throw new HandshakeError(`auth: signature recovery id ${v} is not 0 or 1`);
  const message = xor32(ecdhX(localPrivateKey, auth.initiatorNodeId), auth.initiatorNonce);
  try {
    const recovered = concatBytes(Uint8Array.of(v), auth.signature.subarray(0, 64));
    const key = secp256k1.recoverPublicKey(recovered, message, { prehash: false });
    return secp256k1.Point.fromBytes(key).toBytes(false).subarray(1);
  } catch (e) {
    throw new HandshakeError(`auth: signature does not recover a public key (${(e as Error).message})`);
  }
}

/** Reads a decrypted auth body and recovers the initiator's ephemeral key from its signature. */
export function parseAuthBody(localPrivateKey: Uint8Array, plaintext: Uint8Array, format: HandshakeFormat): ReadAuth {
  let auth: AuthMessage;
  let ephemeralHash: Uint8Array | undefined;
  if (format === 'legacy') {
    if (plaintext.length !== LEGACY_AUTH_BODY_BYTES)
      throw new HandshakeError(`legacy auth body must be ${LEGACY_AUTH_BODY_BYTES} bytes, got ${plaintext.length}`);
    let offset = 0;
    const next = (n: number) => plaintext.subarray(offset, (offset += n));
    const signature = next(SIGNATURE_BYTES);
    ephemeralHash = next(32);
    const initiatorNodeId = next(NODE_ID_BYTES);
    const initiatorNonce = next(NONCE_BYTES);
    auth = { signature, initiatorNodeId, initiatorNonce, version: HANDSHAKE_VERSION };
  } else {
    const items = decodeEip8List(plaintext, 4, 'auth');
    auth = {
      signature: shaped(() => asFixedBytes(items[0], SIGNATURE_BYTES, 'auth signature')),
      initiatorNodeId: shaped(() => asFixedBytes(items[1], NODE_ID_BYTES, 'auth initiator public key')),
      initiatorNonce: shaped(() => asFixedBytes(items[2], NONCE_BYTES, 'auth initiator nonce')),
      version: versionOf(items[3], 'auth version'),
    };
  }
  const initiatorEphemeralId = recoverEphemeralId(localPrivateKey, auth);
  if (ephemeralHash !== undefined && !equalBytes(ephemeralHash, keccak256(initiatorEphemeralId)))
    throw new HandshakeError('legacy auth: hash of the ephemeral public key does not match the signature');
  return { ...auth, initiatorEphemeralId };
}

export function parseAckBody(plaintext: Uint8Array, format: HandshakeFormat): AckMessage {
  let ack: AckMessage;
  if (format === 'legacy') {
    if (plaintext.length !== LEGACY_ACK_BODY_BYTES)
      throw new HandshakeError(`legacy ack body must be ${LEGACY_ACK_BODY_BYTES} bytes, got ${plaintext.length}`);
    ack = {
      recipientEphemeralId: plaintext.subarray(0, NODE_ID_BYTES),
      recipientNonce: plaintext.subarray(NODE_ID_BYTES, NODE_ID_BYTES + NONCE_BYTES),
      version: HANDSHAKE_VERSION,
    };
  } else {
    const items = decodeEip8List(plaintext, 3, 'ack');
    ack = {
      recipientEphemeralId: shaped(() => asFixedBytes(items[0], NODE_ID_BYTES, 'ack ephemeral public key')),
      recipientNonce: shaped(() => asFixedBytes(items[1], NONCE_BYTES, 'ack nonce')),
      version: versionOf(items[2], 'ack version'),
    };
  }
  if (!isValidNodeId(ack.recipientEphemeralId)) throw new HandshakeError('ack: ephemeral public key is not a secp256k1 point');
  return ack;
}

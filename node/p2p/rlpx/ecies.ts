/**
 * ECIES as the RLPx handshake uses it (devp2p rlpx.md, "ECIES Encryption"): ECDH on secp256k1,
 * the NIST SP 800-56 concatenation KDF over SHA-256, AES-128-CTR, and HMAC-SHA256 over
 * iv || ciphertext || sharedMacData. A message is R (65 bytes) || iv (16) || c || d (32).
 * Pure functions: the ephemeral key and the IV are parameters.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { createCipheriv, createDecipheriv, timingSafeEqual } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { concatBytes } from '../../crypto/bytes.ts';
import { ecdhX, publicKeyOfNodeId } from './node-identity.ts';

const PUBLIC_KEY_BYTES = 65;
const IV_BYTES = 16;
const TAG_BYTES = 32;
/** Bytes ECIES adds to a plaintext: R, iv and the tag. */
export const ECIES_OVERHEAD_BYTES = PUBLIC_KEY_BYTES + IV_BYTES + TAG_BYTES;

export class EciesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EciesError';
  }
}

/** NIST SP 800-56A concatenation KDF with SHA-256 and empty OtherInfo: sha256(counter || z) blocks. */
export function concatKdf(z: Uint8Array, lengthBytes: number): Uint8Array {
  const out = new Uint8Array(lengthBytes);
  const counter = new Uint8Array(4);
  for (let block = 1, filled = 0; filled < lengthBytes; block++) {
    new DataView(counter.buffer).setUint32(0, block);
    const digest = sha256.create().update(counter).update(z).digest();
    out.set(digest.subarray(0, lengthBytes - filled), filled);
    filled += digest.length;
  }
  return out;
}

function deriveKeys(sharedX: Uint8Array): { encryptionKey: Uint8Array; macKey: Uint8Array } {
  const key = concatKdf(sharedX, 32);
  return { encryptionKey: key.subarray(0, 16), macKey: sha256(key.subarray(16, 32)) };
}

function aes128Ctr(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array {
  const cipher = createCipheriv('aes-128-ctr', key, iv);
  return new Uint8Array(Buffer.concat([cipher.update(data), cipher.final()]));
}

export interface EciesRandomness {
  /** The sender's one-time secp256k1 private key (32 bytes). */
  ephemeralPrivateKey: Uint8Array;
  /** The AES-CTR initialisation vector (16 bytes). */
  iv: Uint8Array;
}

/**
 * Encrypts `plaintext` to `remotePublicKey` (a 64-byte node id or a 65-byte 0x04 key).
 * `sharedMacData` is authenticated but not part of the output (EIP-8 passes the size prefix).
 */
export function eciesEncrypt(
  remotePublicKey: Uint8Array,
  plaintext: Uint8Array,
  randomness: EciesRandomness,
  sharedMacData: Uint8Array = new Uint8Array(0),
): Uint8Array {
  const { ephemeralPrivateKey, iv } = randomness;
  if (iv.length !== IV_BYTES) throw new EciesError(`iv must be ${IV_BYTES} bytes, got ${iv.length}`);
  const remoteKey = remotePublicKey.length === 64 ? publicKeyOfNodeId(remotePublicKey) : remotePublicKey;
  const { encryptionKey, macKey } = deriveKeys(ecdhX(ephemeralPrivateKey, remoteKey));
  const ciphertext = aes128Ctr(encryptionKey, iv, plaintext);
  const tag = hmac(sha256, macKey, concatBytes(iv, ciphertext, sharedMacData));
  return concatBytes(secp256k1.getPublicKey(ephemeralPrivateKey, false), iv, ciphertext, tag);
}

/** Decrypts an ECIES message addressed to `privateKey`; throws EciesError when it does not authenticate. */
export function eciesDecrypt(
  privateKey: Uint8Array,
  message: Uint8Array,
  sharedMacData: Uint8Array = new Uint8Array(0),
): Uint8Array {
  if (message.length < ECIES_OVERHEAD_BYTES) throw new EciesError(`message of ${message.length} bytes is shorter than the ECIES overhead`);
  if (message[0] !== 0x04) throw new EciesError(`ephemeral key prefix 0x${message[0].toString(16)} is not 0x04`);
  let sharedX: Uint8Array;
  try {
    sharedX = ecdhX(privateKey, message.subarray(0, PUBLIC_KEY_BYTES));
  } catch (e) {
    throw new EciesError(`invalid ephemeral public key (${(e as Error).message})`);
  }
  const { encryptionKey, macKey } = deriveKeys(sharedX);
  const iv = message.subarray(PUBLIC_KEY_BYTES, PUBLIC_KEY_BYTES + IV_BYTES);
  const ciphertext = message.subarray(PUBLIC_KEY_BYTES + IV_BYTES, message.length - TAG_BYTES);
  const tag = message.subarray(message.length - TAG_BYTES);
  const expected = hmac(sha256, macKey, concatBytes(iv, ciphertext, sharedMacData));
  if (!timingSafeEqual(expected, tag)) throw new EciesError('message authentication failed');
  const decipher = createDecipheriv('aes-128-ctr', encryptionKey, iv);
  return new Uint8Array(Buffer.concat([decipher.update(ciphertext), decipher.final()]));
}

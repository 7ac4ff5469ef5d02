/**
 * RLPx node identity: the node key is a secp256k1 private key (32 bytes) and the node id is its
 * uncompressed public key without the 0x04 prefix (64 bytes), as enode URLs and Hello carry it.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { concatBytes } from '../../crypto/bytes.ts';

export const NODE_ID_BYTES = 64;
export const PRIVATE_KEY_BYTES = 32;

export function nodeIdFromPrivateKey(privateKey: Uint8Array): Uint8Array {
  if (privateKey.length !== PRIVATE_KEY_BYTES) throw new Error(`node key must be ${PRIVATE_KEY_BYTES} bytes, got ${privateKey.length}`);
  return secp256k1.getPublicKey(privateKey, false).subarray(1);
}

/** True when `nodeId` is 64 bytes naming a point on secp256k1. */
export function isValidNodeId(nodeId: Uint8Array): boolean {
  if (nodeId.length !== NODE_ID_BYTES) return false;
  try {
    secp256k1.Point.fromBytes(concatBytes(Uint8Array.of(4), nodeId)).assertValidity();
    return true;
  } catch {
    return false;
  }
}

/** The 65-byte 0x04-prefixed public key of a node id; throws when it is not a curve point. */
export function publicKeyOfNodeId(nodeId: Uint8Array): Uint8Array {
  if (nodeId.length !== NODE_ID_BYTES) throw new Error(`node id must be ${NODE_ID_BYTES} bytes, got ${nodeId.length}`);
  const key = concatBytes(Uint8Array.of(4), nodeId);
  secp256k1.Point.fromBytes(key).assertValidity();
  return key;
}

/** ECDH as RLPx uses it: the x coordinate (32 bytes) of privateKey * publicKey. */
export function ecdhX(privateKey: Uint8Array, publicKey: Uint8Array): Uint8Array {
  const key = publicKey.length === NODE_ID_BYTES ? publicKeyOfNodeId(publicKey) : publicKey;
  return secp256k1.getSharedSecret(privateKey, key, true).subarray(1);
}

/** Whether `privateKey` is a usable secp256k1 scalar (1 <= k < n). */
export function isValidPrivateKey(privateKey: Uint8Array): boolean {
  return privateKey.length === PRIVATE_KEY_BYTES && secp256k1.utils.isValidSecretKey(privateKey);
}

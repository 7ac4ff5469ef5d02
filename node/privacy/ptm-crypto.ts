/**
 * The private transaction manager's cryptography, with NaCl's primitives as Tessera used them.
 *
 * Privacy keys are X25519 (Curve25519) key pairs; the public key, in base64, is the key Besu's
 * --privacy-public-key-file names. Two keys share a box key: NaCl's crypto_box_beforenm
 * (HSalsa20 of the X25519 shared secret), which only the holder of either private key can make.
 *
 * Payloads (Tessera's construction): a fresh random master key encrypts the payload once with
 * XSalsa20-Poly1305 (NaCl secretbox) under a random 24-byte nonce; the master key is boxed to each
 * recipient with the box key of the sender's and the recipient's keys, under one random recipient
 * nonce (one nonce is safe: every recipient's box key differs). A recipient, the sender included,
 * opens its box with its own private key and the sender's public key, then the payload. Poly1305
 * rejects any changed byte. Poly1305 does not commit to its key, so the payload's id covers
 * keccak256(master key): every recipient that accepts the id decrypts the same bytes.
 *
 * Key proofs: a node proves it holds the private key of the privacy key it claims by a MAC, keyed
 * by the box key of the claimed key and the verifier's key, over the verifier's fresh challenge,
 * both keys and both transport identities (the prover's first). Only the holder of the claimed
 * private key (or of the verifier's own) can make it; the identities stop a relay (a peer passing
 * on another connection's proof as its own); the challenge stops a replay.
 */
import { RLP } from '@ethereumjs/rlp';
import { x25519 } from '@noble/curves/ed25519.js';
import { hsalsa, xsalsa20poly1305 } from '@noble/ciphers/salsa.js';
import { equalBytes, u32 } from '@noble/ciphers/utils.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak256 } from '../crypto/keccak.ts';

export const NONCE_BYTES = 24;
export const CHALLENGE_BYTES = 32;
export const PROOF_BYTES = 32;
/** A boxed master key: 32 bytes and the 16-byte Poly1305 tag. */
export const BOX_BYTES = 48;
export const TAG_BYTES = 16;

/** OS randomness live, the seeded source in the simulator (the runtime's Random). */
export type RandomBytes = (n: number) => Uint8Array;

export interface PrivacyKeyPair {
  /** base64, as Besu shows privacy keys */
  publicKey: string;
  privateKey: Uint8Array;
}

/** What one recipient of a payload gets: the payload's ciphertext and the master key boxed to it. */
export interface Envelope {
  cipherText: Uint8Array;
  cipherNonce: Uint8Array;
  recipientNonce: Uint8Array;
  box: Uint8Array;
}

const SIGMA = u32(new TextEncoder().encode('expand 32-byte k'));
const ZERO_NONCE_PREFIX = new Uint32Array(4);
const PROOF_DOMAIN = new TextEncoder().encode('qbft-lab ptm key proof v1');

export function privacyPublicKeyOf(privateKey: Uint8Array): Uint8Array {
  return x25519.getPublicKey(privateKey);
}

export function keyPairOf(privateKey: Uint8Array): PrivacyKeyPair {
  return { publicKey: Buffer.from(privacyPublicKeyOf(privateKey)).toString('base64'), privateKey };
}

/**
 * NaCl's crypto_box_beforenm. Undefined for a key of small order (its shared secret is zero,
 * which anyone can compute: such a key proves nothing and protects nothing).
 */
export function boxKey(ownPrivateKey: Uint8Array, otherPublicKey: Uint8Array): Uint8Array | undefined {
  let shared: Uint8Array;
  try {
    shared = x25519.getSharedSecret(ownPrivateKey, otherPublicKey);
  } catch {
    return undefined;
  }
  const out = new Uint32Array(8);
  hsalsa(SIGMA, u32(Uint8Array.from(shared)), ZERO_NONCE_PREFIX, out);
  return new Uint8Array(out.buffer);
}

/** The payload encrypted once under a fresh master key. */
export function encryptPayload(payload: Uint8Array, random: RandomBytes): { cipherText: Uint8Array; cipherNonce: Uint8Array; masterKey: Uint8Array } {
  const masterKey = random(32);
  const cipherNonce = random(NONCE_BYTES);
  return { cipherText: xsalsa20poly1305(masterKey, cipherNonce).encrypt(payload), cipherNonce, masterKey };
}

/** The master key boxed to one recipient (`key`: the box key of the sender's and the recipient's keys). */
export function boxMasterKey(masterKey: Uint8Array, key: Uint8Array, recipientNonce: Uint8Array): Uint8Array {
  return xsalsa20poly1305(key, recipientNonce).encrypt(masterKey);
}

/** The payload and its master key, or undefined when the envelope was not made for this box key or was changed. */
export function openEnvelope(envelope: Envelope, key: Uint8Array): { payload: Uint8Array; masterKey: Uint8Array } | undefined {
  try {
    const masterKey = xsalsa20poly1305(key, envelope.recipientNonce).decrypt(envelope.box);
    if (masterKey.length !== 32) return undefined;
    return { payload: xsalsa20poly1305(masterKey, envelope.cipherNonce).decrypt(envelope.cipherText), masterKey };
  } catch {
    return undefined;
  }
}

export function masterKeyCommitment(masterKey: Uint8Array): Uint8Array {
  return keccak256(masterKey);
}

export interface ProofParties {
  proverKey: Uint8Array;
  proverId: string;
  verifierKey: Uint8Array;
  verifierId: string;
}

/** The proof that the prover holds its key's private half (`key`: the box key of the two privacy keys). */
export function keyProof(key: Uint8Array, challenge: Uint8Array, p: ProofParties): Uint8Array {
  const macKey = hmac(sha256, key, PROOF_DOMAIN);
  const utf8 = new TextEncoder();
  return hmac(sha256, macKey, RLP.encode([challenge, p.proverKey, p.verifierKey, utf8.encode(p.proverId), utf8.encode(p.verifierId)]));
}

export function proofHolds(expected: Uint8Array, given: Uint8Array): boolean {
  return given.length === expected.length && equalBytes(expected, given);
}

/**
 * One direction's RLPx frame MAC (devp2p rlpx.md "MAC"): a running keccak256 state, updated
 * with the ciphertext, whose 16-byte digests are mixed through AES-256-ECB keyed by mac-secret:
 *   header: seed = aes(mac-secret, digest[:16]) ^ header-ciphertext; update(seed); mac = digest[:16]
 *   frame:  update(frame-ciphertext); seed = aes(mac-secret, digest[:16]) ^ digest[:16]; update(seed); mac = digest[:16]
 */
import { createCipheriv, type Cipher } from 'node:crypto';
import type { KeccakState } from './session-secrets.ts';

export const MAC_BYTES = 16;

export class FrameMac {
  private readonly aes: Cipher;

  constructor(
    private readonly state: KeccakState,
    macSecret: Uint8Array,
  ) {
    // ECB has no chaining, so one cipher object serves every 16-byte block.
    this.aes = createCipheriv('aes-256-ecb', macSecret, null);
    this.aes.setAutoPadding(false);
  }

  /** The first 16 bytes of the current digest, leaving the state as it is. */
  digest16(): Uint8Array {
    return this.state.clone().digest().subarray(0, MAC_BYTES);
  }

  private encryptBlock(block: Uint8Array): Uint8Array {
    return new Uint8Array(this.aes.update(block));
  }

  /** Updates with a 16-byte header ciphertext; returns the header MAC. */
  updateHeader(headerCiphertext: Uint8Array): Uint8Array {
    const seed = this.encryptBlock(this.digest16());
    for (let i = 0; i < MAC_BYTES; i++) seed[i] ^= headerCiphertext[i];
    this.state.update(seed);
    return this.digest16();
  }

  /** Updates with a (padded) frame ciphertext; returns the frame MAC. */
  updateFrame(frameCiphertext: Uint8Array): Uint8Array {
    this.state.update(frameCiphertext);
    const prev = this.digest16();
    const seed = this.encryptBlock(prev);
    for (let i = 0; i < MAC_BYTES; i++) seed[i] ^= prev[i];
    this.state.update(seed);
    return this.digest16();
  }
}

/**
 * The RLPx session secrets derived once auth and ack are exchanged (devp2p rlpx.md):
 *   ephemeral-key = ecdh.agree(ephemeral-privkey, remote-ephemeral-pubk)
 *   shared-secret = keccak256(ephemeral-key || keccak256(recipient-nonce || initiator-nonce))
 *   aes-secret    = keccak256(ephemeral-key || shared-secret)
 *   mac-secret    = keccak256(ephemeral-key || aes-secret)
 * and the two keccak MAC states: the initiator's egress starts with (mac-secret ^ recipient-nonce) || auth,
 * its ingress with (mac-secret ^ initiator-nonce) || ack; the recipient's are the mirror image.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { concatBytes } from '../../crypto/bytes.ts';
import { keccak256 } from '../../crypto/keccak.ts';
import { ecdhX } from './node-identity.ts';

export type KeccakState = ReturnType<typeof keccak_256.create>;
export type HandshakeRole = 'initiator' | 'recipient';

export interface SessionSecrets {
  ephemeralKey: Uint8Array;
  sharedSecret: Uint8Array;
  aesSecret: Uint8Array;
  macSecret: Uint8Array;
  /** Running keccak states; the frame codec keeps updating them. */
  egressMac: KeccakState;
  ingressMac: KeccakState;
}

function xor(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] ^ b[i];
  return out;
}

export function deriveSessionSecrets(params: {
  role: HandshakeRole;
  ephemeralPrivateKey: Uint8Array;
  remoteEphemeralId: Uint8Array;
  initiatorNonce: Uint8Array;
  recipientNonce: Uint8Array;
  /** The auth and ack packets exactly as they went over the wire (EIP-8 size prefix included). */
  authPacket: Uint8Array;
  ackPacket: Uint8Array;
}): SessionSecrets {
  const ephemeralKey = ecdhX(params.ephemeralPrivateKey, params.remoteEphemeralId);
  const sharedSecret = keccak256(concatBytes(ephemeralKey, keccak256(concatBytes(params.recipientNonce, params.initiatorNonce))));
  const aesSecret = keccak256(concatBytes(ephemeralKey, sharedSecret));
  const macSecret = keccak256(concatBytes(ephemeralKey, aesSecret));
  const initiatorSide = {
    egress: keccak_256.create().update(xor(macSecret, params.recipientNonce)).update(params.authPacket),
    ingress: keccak_256.create().update(xor(macSecret, params.initiatorNonce)).update(params.ackPacket),
  };
  const egressMac = params.role === 'initiator' ? initiatorSide.egress : initiatorSide.ingress;
  const ingressMac = params.role === 'initiator' ? initiatorSide.ingress : initiatorSide.egress;
  return { ephemeralKey, sharedSecret, aesSecret, macSecret, egressMac, ingressMac };
}

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
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { concatBytes } from '../../crypto/bytes.ts';
import { keccak256 } from '../../crypto/keccak.ts';
import { ecdhX } from './node-identity.ts';

/** A running keccak-256 state (noble's incremental hasher has this shape). */
export interface KeccakState {
  update(data: Uint8Array): KeccakState;
  /** A copy; the copy's digest() leaves this state as it is. */
  clone(): KeccakState;
  /** Finishes this state: no update() after it. */
  digest(): Uint8Array;
}
export type HandshakeRole = 'initiator' | 'recipient';

/** The `keccak` package's native sponge (its addon's class, without the package's stream wrapper). */
interface NativeSponge {
  initialize(rate: number, capacity: number): void;
  absorb(data: Uint8Array): void;
  squeeze(length: number): Uint8Array;
  copy(to: NativeSponge): void;
}

/** keccak-256 on a native sponge: every frame updates the MAC and takes 4 digests, ~5x faster than noble. */
class NativeKeccakState implements KeccakState {
  constructor(
    private readonly Sponge: new () => NativeSponge,
    private readonly sponge: NativeSponge,
  ) {}

  update(data: Uint8Array): KeccakState {
    this.sponge.absorb(data);
    return this;
  }

  clone(): KeccakState {
    const copy = new this.Sponge();
    this.sponge.copy(copy);
    return new NativeKeccakState(this.Sponge, copy);
  }

  digest(): Uint8Array {
    const out = this.sponge.squeeze(32);
    return new Uint8Array(out.buffer, out.byteOffset, 32);
  }
}

type KeccakStateFactory = () => KeccakState;

const nobleKeccakState: KeccakStateFactory = () => keccak_256.create();

/** The native factory, or undefined when the addon does not load or disagrees with noble. */
function loadNativeKeccakState(): KeccakStateFactory | undefined {
  try {
    const require = createRequire(import.meta.url);
    const pkg = require.resolve('keccak/package.json');
    const Sponge = (createRequire(pkg)('node-gyp-build') as (dir: string) => new () => NativeSponge)(dirname(pkg));
    const create: KeccakStateFactory = () => {
      const sponge = new Sponge();
      sponge.initialize(1088, 512);
      return new NativeKeccakState(Sponge, sponge);
    };
    // Incremental updates (views at an offset included), a clone's digest, then the original's.
    const probe = new Uint8Array(300).map((_, i) => (i * 7) & 0xff);
    const ours = create().update(probe.subarray(0, 0)).update(probe.subarray(3, 140));
    const theirs = keccak_256.create().update(probe.subarray(3, 140));
    const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);
    if (!same(ours.clone().digest(), theirs.clone().digest())) return undefined;
    ours.update(probe);
    theirs.update(probe);
    if (!same(ours.digest(), theirs.digest())) return undefined;
    return create;
  } catch {
    return undefined;
  }
}

let newKeccakState: KeccakStateFactory = loadNativeKeccakState() ?? nobleKeccakState;

/** A fresh keccak-256 state for the frame MACs: native when the addon loads, noble otherwise. */
export function createKeccakState(): KeccakState {
  return newKeccakState();
}

/** Which implementation createKeccakState() uses ('noble' forces noble, for tests and comparisons). */
export function macKeccakProvider(): 'native' | 'noble' {
  return newKeccakState === nobleKeccakState ? 'noble' : 'native';
}

export function useMacKeccakProvider(kind: 'native' | 'noble'): void {
  newKeccakState = kind === 'native' ? (loadNativeKeccakState() ?? nobleKeccakState) : nobleKeccakState;
}

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
    egress: createKeccakState().update(xor(macSecret, params.recipientNonce)).update(params.authPacket),
    ingress: createKeccakState().update(xor(macSecret, params.initiatorNonce)).update(params.ackPacket),
  };
  const egressMac = params.role === 'initiator' ? initiatorSide.egress : initiatorSide.ingress;
  const ingressMac = params.role === 'initiator' ? initiatorSide.ingress : initiatorSide.egress;
  return { ephemeralKey, sharedSecret, aesSecret, macSecret, egressMac, ingressMac };
}

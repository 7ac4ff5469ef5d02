/**
 * Hashing and signer recovery for the checkers, independent of node/crypto: each from a native
 * binding when it loads and agrees with @noble on probes (keccak-256 from the `keccak` package,
 * about 4 times faster; recovery from libsecp256k1, about 40 times), else from @noble.
 *
 * Signatures are Besu's 65 bytes r || s || recId with recId 0 or 1, over a 32-byte hash. Both
 * halves of s recover: the checkers judge who signed, and count a malleated copy of a seal as a
 * second seal of the same signer (a duplicate), not as a new signer.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';

export type Hex = `0x${string}`;

type Hash = (bytes: Uint8Array) => Uint8Array;

type Sponge = { initialize(rate: number, capacity: number): void; absorb(d: Uint8Array): void; squeeze(n: number): Uint8Array };

/**
 * The `keccak` package's native sponge, used directly (its public API wraps every hash in a stream
 * Transform, about twice the cost), when it loads and agrees with @noble/hashes on probes of
 * several lengths; else noble. The checkers hash every block and message they see.
 */
function loadKeccak(): Hash {
  try {
    const require = createRequire(import.meta.url);
    const pkg = require.resolve('keccak/package.json');
    const State = (createRequire(pkg)('node-gyp-build') as (dir: string) => new () => Sponge)(dirname(pkg));
    const state = new State();
    const native: Hash = (bytes) => {
      state.initialize(1088, 512);
      state.absorb(bytes);
      const out = state.squeeze(32);
      return new Uint8Array(out.buffer, out.byteOffset, 32);
    };
    for (const length of [0, 1, 135, 136, 137, 500]) {
      const probe = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 0xff);
      const a = native(probe);
      const b = keccak_256(probe);
      if (a.length !== 32 || a.some((x, i) => x !== b[i])) return keccak_256;
    }
    return native;
  } catch {
    return keccak_256;
  }
}

const keccakImpl = loadKeccak();

export function keccak(bytes: Uint8Array): Uint8Array {
  return keccakImpl(bytes);
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Lowercase 0x-hex as a flat string (a `+=` loop would leave a rope of one node per byte). */
export function toHex(bytes: Uint8Array): Hex {
  if (bytes.length > 8) return ('0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')) as Hex;
  let s = '0x';
  for (const b of bytes) s += HEX[b];
  return s as Hex;
}

export function fromHex(hex: string): Uint8Array {
  const body = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (body.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(body)) throw new Error(`not hex: ${hex.slice(0, 20)}`);
  const out = new Uint8Array(body.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(body.slice(2 * i, 2 * i + 2), 16);
  return out;
}

const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function scalar(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

/** Uncompressed public key (64 bytes, no 0x04 prefix) -> lowercase address. */
export function addressOfPublicKey(publicKey64: Uint8Array): Hex {
  return toHex(keccak(publicKey64).subarray(12));
}

type Recover = (hash: Uint8Array, signature: Uint8Array) => Uint8Array;

const nobleRecover: Recover = (hash, signature) => {
  const recovered = new Uint8Array(65);
  recovered[0] = signature[64]!;
  recovered.set(signature.subarray(0, 64), 1);
  const compressed = secp256k1.recoverPublicKey(recovered, hash, { prehash: false });
  return secp256k1.Point.fromBytes(compressed).toBytes(false).subarray(1);
};

interface NativeSecp {
  ecdsaRecover(sig: Uint8Array, recid: number, msg: Uint8Array, compressed: boolean): Uint8Array;
}

function loadRecover(): { recover: Recover; kind: 'native' | 'noble' } {
  try {
    const native = createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp;
    const recover: Recover = (hash, signature) => native.ecdsaRecover(signature.subarray(0, 64), signature[64]!, hash, false).subarray(1);
    const key = keccak(new TextEncoder().encode('qbft-lab checkers recovery probe'));
    const hash = keccak(key);
    const sig = secp256k1.sign(hash, key, { prehash: false, lowS: true, format: 'recovered' });
    const probe = new Uint8Array(65);
    probe.set(sig.subarray(1, 65), 0);
    probe[64] = sig[0]!;
    if (toHex(recover(hash, probe)) === toHex(nobleRecover(hash, probe))) return { recover, kind: 'native' };
  } catch {
    // fall through to noble
  }
  return { recover: nobleRecover, kind: 'noble' };
}

const backend = loadRecover();

export function recoveryBackend(): 'native' | 'noble' {
  return backend.kind;
}

/** Why a signature cannot be recovered, or undefined when its shape is fine. */
function shapeProblem(signature: Uint8Array): string | undefined {
  if (signature.length !== 65) return `signature is ${signature.length} bytes, not 65`;
  if (signature[64]! > 1) return `recovery id ${signature[64]} is not 0 or 1`;
  const r = scalar(signature.subarray(0, 32));
  const s = scalar(signature.subarray(32, 64));
  if (r === 0n || r >= CURVE_ORDER || s === 0n || s >= CURVE_ORDER) return 'r or s out of range';
  return undefined;
}

/**
 * Signer recovery with a bounded memo (a run sees each signature many times: relayed, piggy-backed,
 * sealed into blocks). Returns undefined when the signature does not recover.
 */
export class SignerRecovery {
  private readonly memo = new Map<string, Hex | null>();

  constructor(private readonly capacity = 200_000) {}

  signer(hash: Uint8Array, signature: Uint8Array): Hex | undefined {
    const key = toHex(signature) + toHex(hash).slice(2);
    const hit = this.memo.get(key);
    if (hit !== undefined) return hit ?? undefined;
    let value: Hex | null = null;
    if (hash.length === 32 && shapeProblem(signature) === undefined) {
      try {
        value = addressOfPublicKey(backend.recover(hash, signature));
      } catch {
        value = null;
      }
    }
    if (this.memo.size >= this.capacity) this.memo.delete(this.memo.keys().next().value as string);
    this.memo.set(key, value);
    return value ?? undefined;
  }
}

/** Signs as Besu does (RFC 6979, low s, r || s || recId): for building test fixtures. */
export function signHash(hash: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const sig = secp256k1.sign(hash, privateKey, { prehash: false, lowS: true, format: 'recovered' });
  const out = new Uint8Array(65);
  out.set(sig.subarray(1, 65), 0);
  out[64] = sig[0]!;
  return out;
}

export function addressOfPrivateKey(privateKey: Uint8Array): Hex {
  return addressOfPublicKey(secp256k1.getPublicKey(privateKey, false).subarray(1));
}

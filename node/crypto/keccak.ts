import { keccak_256 } from '@noble/hashes/sha3.js';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

type HashFn = (data: Uint8Array) => Uint8Array;

const nobleKeccak: HashFn = (data) => keccak_256(data);

type KeccakState = { initialize(rate: number, capacity: number): void; absorb(d: Uint8Array): void; squeeze(n: number): Uint8Array };

/**
 * The `keccak` package's native sponge used directly: its public API builds a stream Transform
 * per hash and copies non-Buffer input, which costs about twice as much. One state is reused: hashing
 * is synchronous, so no two calls interleave.
 */
function loadDirectKeccak(): HashFn | undefined {
  try {
    const require = createRequire(import.meta.url);
    const pkg = require.resolve('keccak/package.json');
    const gyp = createRequire(pkg)('node-gyp-build') as (dir: string) => new () => KeccakState;
    const State = gyp(dirname(pkg));
    const state = new State();
    const hash: HashFn = (data) => {
      state.initialize(1088, 512);
      state.absorb(data);
      const out = state.squeeze(32);
      return new Uint8Array(out.buffer, out.byteOffset, 32);
    };
    const probe = new Uint8Array(300).map((_, i) => (i * 7) & 0xff);
    for (const m of [new Uint8Array(0), probe, probe.subarray(5, 250)]) {
      const a = hash(m);
      const b = nobleKeccak(m);
      if (a.length !== 32 || a.some((x, i) => x !== b[i])) return undefined;
    }
    return hash;
  } catch {
    return undefined;
  }
}

function loadNativeKeccak(): HashFn | undefined {
  try {
    const require = createRequire(import.meta.url);
    const create = require('keccak/bindings') as (alg: string) => { update(d: Buffer): any; digest(): Buffer };
    const hash: HashFn = (data) => {
      const d = create('keccak256').update(Buffer.from(data.buffer, data.byteOffset, data.byteLength)).digest();
      return new Uint8Array(d.buffer, d.byteOffset, d.length);
    };
    const probe = Uint8Array.of(1, 2, 3);
    const a = hash(probe);
    const b = nobleKeccak(probe);
    if (a.length !== 32 || a.some((x, i) => x !== b[i])) return undefined;
    return hash;
  } catch {
    return undefined;
  }
}

let impl: HashFn = loadDirectKeccak() ?? loadNativeKeccak() ?? nobleKeccak;

/** keccak-256 (the Ethereum variant). Uses the native binding when it loads, noble otherwise. */
export function keccak256(data: Uint8Array): Uint8Array {
  return impl(data);
}

export function activeKeccakProvider(): 'native' | 'noble' {
  return impl === nobleKeccak ? 'noble' : 'native';
}

export function useKeccakProvider(kind: 'native' | 'noble'): void {
  impl = kind === 'native' ? (loadDirectKeccak() ?? loadNativeKeccak() ?? nobleKeccak) : nobleKeccak;
}

export { nobleKeccak };

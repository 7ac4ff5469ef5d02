import { keccak_256 } from '@noble/hashes/sha3.js';
import { createRequire } from 'node:module';

type HashFn = (data: Uint8Array) => Uint8Array;

const nobleKeccak: HashFn = (data) => keccak_256(data);

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

let impl: HashFn = loadNativeKeccak() ?? nobleKeccak;

/** keccak-256 (the Ethereum variant). Uses the native binding when it loads, noble otherwise. */
export function keccak256(data: Uint8Array): Uint8Array {
  return impl(data);
}

export function activeKeccakProvider(): 'native' | 'noble' {
  return impl === nobleKeccak ? 'noble' : 'native';
}

export function useKeccakProvider(kind: 'native' | 'noble'): void {
  impl = kind === 'native' ? (loadNativeKeccak() ?? nobleKeccak) : nobleKeccak;
}

export { nobleKeccak };

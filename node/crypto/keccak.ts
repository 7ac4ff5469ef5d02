import { keccak_256 } from '@noble/hashes/sha3.js';
import { createRequire } from 'node:module';

type HashFn = (data: Uint8Array) => Uint8Array;

const nobleKeccak: HashFn = (data) => keccak_256(data);

function loadNativeKeccak(): HashFn | undefined {
  try {
    const require = createRequire(import.meta.url);
    const create = require('keccak/bindings') as (alg: string) => { update(d: Uint8Array): any; digest(): Buffer };
    create('keccak256').update(new Uint8Array(1)).digest();
    return (data) => {
      const d = create('keccak256').update(data).digest();
      return new Uint8Array(d.buffer, d.byteOffset, d.length);
    };
  } catch {
    return undefined;
  }
}

let impl: HashFn = loadNativeKeccak() ?? nobleKeccak;

/** keccak-256 (the Ethereum variant). Uses the native binding when it loads, noble otherwise. */
export function keccak256(data: Uint8Array): Uint8Array {
  return impl(data);
}

export function useKeccakProvider(kind: 'native' | 'noble'): void {
  impl = kind === 'native' ? (loadNativeKeccak() ?? nobleKeccak) : nobleKeccak;
}

export { nobleKeccak };

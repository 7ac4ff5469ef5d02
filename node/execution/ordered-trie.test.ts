import test from 'ava';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../crypto/ethereumjs-crypto.ts';
import { orderedTrieRoot } from './ordered-trie.ts';

async function reference(values: Uint8Array[]): Promise<Uint8Array> {
  const trie = new MerklePatriciaTrie();
  for (let i = 0; i < values.length; i++) await trie.put(RLP.encode(i), values[i]);
  return trie.root();
}

function values(n: number, size: (i: number) => number): Uint8Array[] {
  return Array.from({ length: n }, (_, i) => {
    const len = size(i);
    const v = new Uint8Array(len);
    for (let k = 0; k < len; k++) v[k] = (i * 31 + k * 7 + 1) & 0xff;
    return v;
  });
}

test('orderedTrieRoot equals MerklePatriciaTrie for many sizes and value shapes', async (t) => {
  const sizes = [0, 1, 2, 3, 15, 16, 17, 127, 128, 129, 130, 255, 256, 257, 300];
  const shapes: Array<(i: number) => number> = [() => 1, () => 5, (i) => 1 + (i % 40), () => 120, (i) => (i % 3 === 0 ? 300 : 2)];
  for (const n of sizes) {
    for (const shape of shapes) {
      const v = values(n, shape);
      t.deepEqual(orderedTrieRoot(v, keccak256), await reference(v), `n=${n}`);
    }
  }
  const big = values(1500, (i) => 1 + (i % 90));
  t.deepEqual(orderedTrieRoot(big, keccak256), await reference(big));
});

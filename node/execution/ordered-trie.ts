/**
 * Root of the Merkle-Patricia trie that maps RLP(index) -> value (transactions root, receipts
 * root, withdrawals root), computed in one pass without a database.
 *
 * @ethereumjs/mpt inserts key by key and re-serializes and re-hashes the whole path on every put
 * (~150 µs per entry for receipts on these machines); here the sorted keys are split recursively
 * and each node is encoded and hashed exactly once. Checked against MerklePatriciaTrie in
 * ordered-trie.test.ts.
 */
import { RLP, type Input } from '@ethereumjs/rlp';

type Keccak = (data: Uint8Array) => Uint8Array;
type NodeRef = Uint8Array | Input[];

interface Entry {
  nibbles: Uint8Array;
  value: Uint8Array;
}

const EMPTY = new Uint8Array(0);

function toNibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i] >> 4;
    out[2 * i + 1] = key[i] & 15;
  }
  return out;
}

function hexPrefix(nibbles: Uint8Array, from: number, to: number, leaf: boolean): Uint8Array {
  const len = to - from;
  const odd = len & 1;
  const out = new Uint8Array((len >> 1) + 1);
  const flag = (leaf ? 2 : 0) + odd;
  let j = from;
  if (odd) out[0] = (flag << 4) | nibbles[j++];
  else out[0] = flag << 4;
  for (let i = 1; i < out.length; i++, j += 2) out[i] = (nibbles[j] << 4) | nibbles[j + 1];
  return out;
}

function compareNibbles(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** A node's reference inside its parent: the node itself if its encoding is < 32 bytes, else its hash. */
function ref(node: Input[], keccak: Keccak): NodeRef {
  const enc = RLP.encode(node);
  return enc.length < 32 ? node : keccak(enc);
}

/** Builds the node for `entries` (sorted, distinct keys) sharing the first `depth` nibbles. */
function build(entries: Entry[], lo: number, hi: number, depth: number, keccak: Keccak): Input[] {
  if (hi - lo === 1) {
    const e = entries[lo];
    return [hexPrefix(e.nibbles, depth, e.nibbles.length, true), e.value];
  }
  // common prefix of the whole (sorted) range = common prefix of its first and last keys
  const first = entries[lo].nibbles;
  const last = entries[hi - 1].nibbles;
  let p = depth;
  while (p < first.length && p < last.length && first[p] === last[p]) p++;
  if (p > depth) {
    const child = build(entries, lo, hi, p, keccak);
    return [hexPrefix(first, depth, p, false), ref(child, keccak)];
  }
  const branch: Input[] = new Array(17).fill(EMPTY);
  let i = lo;
  if (entries[i].nibbles.length === depth) {
    branch[16] = entries[i].value; // a key that ends here (cannot happen for RLP(index) keys)
    i++;
  }
  while (i < hi) {
    const nib = entries[i].nibbles[depth];
    let j = i + 1;
    while (j < hi && entries[j].nibbles[depth] === nib) j++;
    branch[nib] = ref(build(entries, i, j, depth + 1, keccak), keccak);
    i = j;
  }
  return branch;
}

/** Root of the trie { RLP(i): values[i] }; keccak256(RLP('')) when empty. */
export function orderedTrieRoot(values: Uint8Array[], keccak: Keccak): Uint8Array {
  if (values.length === 0) return keccak(RLP.encode(EMPTY));
  const entries: Entry[] = values.map((value, i) => ({ nibbles: toNibbles(RLP.encode(i)), value }));
  entries.sort((a, b) => compareNibbles(a.nibbles, b.nibbles));
  return keccak(RLP.encode(build(entries, 0, entries.length, 0, keccak)));
}

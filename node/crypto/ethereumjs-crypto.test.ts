import test from 'ava';
import { secp256k1 as noble } from '@noble/curves/secp256k1.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { ecrecover as utilEcrecover } from '@ethereumjs/util';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { Common, Mainnet } from '@ethereumjs/common';
import { keccak256 } from './keccak.ts';
import {
  cryptoPluginBackend,
  customCrypto,
  ecdsaRecover,
  ecrecover,
  ecsign,
  recoveryMemoStats,
  sha256,
  useCryptoPluginBackend,
} from '../crypto/ethereumjs-crypto.ts';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const hash = (s: string) => keccak_256(new TextEncoder().encode(s));
const to32 = (v: bigint) => {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0; i--, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
};
const big = (b: Uint8Array) => b.reduce((a, x) => (a << 8n) | BigInt(x), 0n);

function cases() {
  const out: Array<{ msg: Uint8Array; r: Uint8Array; s: Uint8Array; rec: number }> = [];
  for (let i = 1; i <= 8; i++) {
    const key = hash(`key ${i}`);
    const msg = hash(`msg ${i}`);
    const sig = noble.sign(msg, key, { prehash: false, format: 'recovered' });
    out.push({ msg, r: sig.slice(1, 33), s: sig.slice(33, 65), rec: sig[0] });
  }
  return out;
}

for (const backend of ['native', 'noble'] as const) {
  test.serial(`ecrecover (${backend}) matches @ethereumjs/util, including high-s and invalid inputs`, (t) => {
    useCryptoPluginBackend(backend);
    t.teardown(() => useCryptoPluginBackend('native'));
    for (const { msg, r, s, rec } of cases()) {
      for (const v of [BigInt(rec), 27n + BigInt(rec), 1337n * 2n + 35n + BigInt(rec)]) {
        const chainId = v > 28n ? 1337n : undefined;
        t.deepEqual(ecrecover(msg, v, r, s, chainId), utilEcrecover(msg, v, r, s, chainId));
      }
      // high s (the ECRECOVER precompile accepts it): s' = n - s, recovery bit flipped
      const highS = to32(N - big(s));
      t.deepEqual(ecrecover(msg, 27n + BigInt(1 - rec), r, highS), utilEcrecover(msg, 27n + BigInt(1 - rec), r, highS));
      // unpadded r (as transactions pass it)
      if (r[0] === 0) t.deepEqual(ecrecover(msg, 27n + BigInt(rec), r.subarray(1), s), utilEcrecover(msg, 27n + BigInt(rec), r, s));
      // invalid: zero r, s >= n, bad v
      t.throws(() => ecrecover(msg, 27n, new Uint8Array(32), s));
      t.throws(() => ecrecover(msg, 27n, r, to32(N)));
      t.throws(() => utilEcrecover(msg, 27n, r, to32(N)));
      t.throws(() => ecrecover(msg, 29n, r, s));
      // ecdsaRecover: 65-byte uncompressed key
      const sig = new Uint8Array(64);
      sig.set(r, 0);
      sig.set(s, 32);
      const full = ecdsaRecover(sig, rec, msg);
      t.is(full.length, 65);
      t.is(full[0], 4);
      t.deepEqual(full.subarray(1), utilEcrecover(msg, BigInt(rec), r, s));
    }
  });
}

test.serial('ecsign is byte-identical to noble for the options ethereumjs uses', (t) => {
  t.is(cryptoPluginBackend(), 'native', 'the native secp256k1 binding loads on this machine');
  for (let i = 1; i <= 8; i++) {
    const key = hash(`key ${i}`);
    const msg = hash(`m ${i}`);
    const opts = { prehash: false, format: 'recovered', extraEntropy: false } as const;
    t.deepEqual(ecsign(msg, key, opts), noble.sign(msg, key, opts));
  }
});

test.serial('a transaction signed and recovered through customCrypto', (t) => {
  const common = new Common({ chain: Mainnet, hardfork: 'shanghai', customCrypto });
  const plain = new Common({ chain: Mainnet, hardfork: 'shanghai' });
  const key = hash('tx key');
  const data = { nonce: 3n, to: '0x' + '11'.repeat(20), value: 5n, gasLimit: 21_000n, maxFeePerGas: 10n, maxPriorityFeePerGas: 1n, chainId: 1n };
  const a = createFeeMarket1559Tx(data as never, { common }).sign(key);
  const b = createFeeMarket1559Tx(data as never, { common: plain }).sign(key);
  t.deepEqual(a.serialize(), b.serialize());
  t.deepEqual(a.hash(), b.hash());
  const before = recoveryMemoStats();
  t.is(a.getSenderAddress().toString(), b.getSenderAddress().toString());
  const a2 = createFeeMarket1559Tx(data as never, { common }).sign(key);
  a2.getSenderAddress();
  const after = recoveryMemoStats();
  t.true(after.hits > before.hits, 'second object of the same tx hits the memo');
});

test('hashes agree with noble', (t) => {
  for (const s of ['', 'abc', 'x'.repeat(1000)]) {
    const m = new TextEncoder().encode(s);
    t.deepEqual(new Uint8Array(sha256(m)), nobleSha256(m));
    t.deepEqual(new Uint8Array(keccak256(m)), keccak_256(m));
  }
});

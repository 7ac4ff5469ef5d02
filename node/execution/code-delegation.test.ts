import test from 'ava';
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../crypto/keccak.ts';
import { bytesToHex, hexToBytes, type Hex } from '../crypto/bytes.ts';
import { privateKeyToAddress, sign } from '../crypto/secp256k1.ts';
import { parseCallObject } from '../rpc/params.ts';
import { authorityOf } from './code-delegation.ts';
import type { Authorization } from './calls/call-types.ts';
import { calldataFloorGas } from './calls/call-validation.ts';
import { parseGenesis } from '../chain/genesis.ts';
import { createCommonFromGenesis } from '../chain/common.ts';

const KEY = keccak256(new TextEncoder().encode('authority'));
const DELEGATE = '0x00000000000000000000000000000000000000aa' as Hex;

function signed(chainId: bigint, nonce: bigint): Authorization {
  const int = (n: bigint) => (n === 0n ? new Uint8Array(0) : hexToBytes(`0x${n.toString(16).padStart(2, '0')}`));
  const message = keccak256(Uint8Array.from([0x05, ...RLP.encode([int(chainId), hexToBytes(DELEGATE), int(nonce)])]));
  const sig = sign(message, KEY);
  return { chainId, address: DELEGATE, nonce, yParity: sig[64]!, r: BigInt(bytesToHex(sig.subarray(0, 32))), s: BigInt(bytesToHex(sig.subarray(32, 64))) };
}

test('an authorization recovers to the key that signed it; a high s, a bad parity or another message does not', (t) => {
  const a = signed(1337n, 3n);
  t.is(authorityOf(a), privateKeyToAddress(KEY));
  t.is(authorityOf({ ...a, s: 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n - a.s }), undefined);
  t.is(authorityOf({ ...a, yParity: 2 }), undefined);
  t.not(authorityOf({ ...a, nonce: 4n }), privateKeyToAddress(KEY));
});

test('authorizationList in a call object is parsed (yParity or v) and a malformed tuple is an invalid-params error', (t) => {
  const a = signed(1337n, 0n);
  const entry = { chainId: '0x539', address: DELEGATE, nonce: '0x0', yParity: `0x${a.yParity}`, r: `0x${a.r.toString(16)}`, s: `0x${a.s.toString(16)}` };
  const parsed = parseCallObject({ to: DELEGATE, authorizationList: [entry] });
  t.deepEqual(parsed.authorizationList, [a]);
  const { yParity, ...withV } = entry;
  t.deepEqual(parseCallObject({ authorizationList: [{ ...withV, v: yParity }] }).authorizationList, [a]);
  for (const bad of [{ ...entry, address: '0xzz' }, { ...entry, r: undefined }, { ...entry, yParity: '0x2' }, 'tuple']) t.throws(() => parseCallObject({ authorizationList: [bad] }));
  t.throws(() => parseCallObject({ authorizationList: 'all' }));
});

test('EIP-7623 calldata floor: 21000 + 10 per token from Prague on, nothing before', (t) => {
  const genesis = (prague: boolean) =>
    parseGenesis(JSON.stringify({ config: { chainId: 1, londonBlock: 0, shanghaiTime: 0, cancunTime: 0, ...(prague ? { pragueTime: 0 } : {}), qbft: {} }, gasLimit: '0x1000000', difficulty: '0x1', extraData: '0x', alloc: {} }));
  const data = Uint8Array.of(0, 0, 1, 2);
  t.is(calldataFloorGas(createCommonFromGenesis(genesis(true)), data), 21_000n + 10n * (2n + 8n));
  t.is(calldataFloorGas(createCommonFromGenesis(genesis(false)), data), 0n);
});

/** Deterministic node keys for simulated validators, and Besu's well-known test accounts. */
import { hexToBytes, utf8ToBytes, type Hex } from '../node/crypto/bytes.ts';
import { keccak256 } from '../node/crypto/keccak.ts';
import { privateKeyToAddress } from '../node/crypto/secp256k1.ts';

export interface NodeKey {
  privateKey: Uint8Array;
  address: Hex;
}

/** Key number `i` of a family: keccak("qbft-lab/<family>/<i>"), the same in every run. */
export function deterministicKey(family: string, i: number): NodeKey {
  const privateKey = keccak256(utf8ToBytes(`qbft-lab/${family}/${i}`));
  return { privateKey, address: privateKeyToAddress(privateKey) };
}

/** `n` validator keys sorted by address, so that v0 has the smallest address. */
export function validatorKeys(n: number): NodeKey[] {
  return Array.from({ length: n }, (_, i) => deterministicKey('validator', i)).sort((a, b) => (a.address < b.address ? -1 : 1));
}

/** Besu's documented development accounts (public test keys, funded in generated genesis files). */
export const BESU_TEST_ACCOUNTS: NodeKey[] = [
  '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63',
  '0xc87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3',
  '0xae6ae8e5ccbfb04590405997ee2d52d2b330726137b875053c36d94e974d162f',
].map((k) => {
  const privateKey = hexToBytes(k);
  return { privateKey, address: privateKeyToAddress(privateKey) };
});


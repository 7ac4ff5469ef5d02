import test from 'ava';
import { bytesToHex, hexToBytes } from '../crypto/bytes.ts';
import { generateKeyPair, importPublicKey, KeyImportError, type RandomBytes } from './validator-keys.ts';

/** From Besu's qbftConfigFile.json tutorial alloc: this private key belongs to 0xfe3b…bd73. */
const TUTORIAL_KEY = '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63';
const SECP_N = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';

/** besu:app/src/test/resources/operator/config_import_keys.json and the addresses in OperatorSubCommandTest's extraData. */
const BESU_PUBLIC_KEY = '0x9481ee2b34196827e8c4807ae29c2675c15d3641e482ab81cc0bc3ef535755b426b9f5c474213df28a563fab0bf0830b455ee8955b3faac93075422a6abf160d';
const BESU_ADDRESS = '0xd5feb0fc5a54a89f97aeb34c3df15397c19f6dd2';

/** A source that hands out the given 32-byte draws in order, counting them. */
function scripted(...draws: string[]): RandomBytes & { calls: number } {
  const source = Object.assign(
    (byteCount: number) => {
      if (byteCount !== 32) throw new Error(`asked for ${byteCount} bytes`);
      return hexToBytes(draws[source.calls++]);
    },
    { calls: 0 },
  );
  return source;
}

test('a generated key pair: the address and public key follow from the drawn private key', (t) => {
  const pair = generateKeyPair(scripted(TUTORIAL_KEY));
  t.is(pair.address, '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73');
  t.is(bytesToHex(pair.privateKey!), TUTORIAL_KEY);
  t.is(pair.publicKey.length, 64);
  t.is(importPublicKey(bytesToHex(pair.publicKey)).address, pair.address);
});

test('draws outside [1, n-1] are thrown away', (t) => {
  const source = scripted('00'.repeat(32), SECP_N, 'ff'.repeat(32), TUTORIAL_KEY);
  t.is(generateKeyPair(source).address, '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73');
  t.is(source.calls, 4);
  t.throws(() => generateKeyPair(() => new Uint8Array(32)), { message: /no valid secp256k1 private key in 64 draws/ });
  t.throws(() => generateKeyPair(() => new Uint8Array(31)), { message: /31 bytes instead of 32/ });
});

test('the private key is a copy: a source reusing its buffer cannot change it', (t) => {
  const buffer = hexToBytes(TUTORIAL_KEY);
  const pair = generateKeyPair(() => buffer);
  buffer.fill(7);
  t.is(bytesToHex(pair.privateKey!), TUTORIAL_KEY);
});

test('public keys import as Besu reads them, with or without 0x', (t) => {
  t.is(importPublicKey(BESU_PUBLIC_KEY).address, BESU_ADDRESS);
  t.is(importPublicKey(BESU_PUBLIC_KEY.slice(2).toUpperCase()).address, BESU_ADDRESS);
  t.is(importPublicKey(BESU_PUBLIC_KEY).privateKey, undefined);
});

test('a public key off the curve, of the wrong length or not hex is refused', (t) => {
  const offCurve = BESU_PUBLIC_KEY.slice(0, -1) + (BESU_PUBLIC_KEY.endsWith('d') ? 'e' : 'd');
  t.throws(() => importPublicKey(offCurve), { instanceOf: KeyImportError, message: `${offCurve} is not a valid public key for elliptic curve secp256k1` });
  t.throws(() => importPublicKey('0x04' + BESU_PUBLIC_KEY.slice(2)), { instanceOf: KeyImportError, message: /must be 64 bytes long, got 65/ });
  t.throws(() => importPublicKey(BESU_PUBLIC_KEY.slice(0, -1)), { instanceOf: KeyImportError, message: /is not a hex string/ });
  t.throws(() => importPublicKey('0xzz'), { instanceOf: KeyImportError, message: /is not a hex string/ });
});

/**
 * `network --privacy`: every validator runs the embedded private transaction manager with a
 * privacy key pair of its own, made at random (OS randomness) on the network's first start and
 * kept in the validator's data directory, so a restarted network keeps its keys:
 *   privacy.key  Tessera's unlocked private key file (--privacy-private-key-file)
 *   privacy.pub  the public key in base64 (Besu's --privacy-public-key-file)
 *   marker.key   the key signing its privacy markers: Besu's development account i (funded)
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { privacyPrivateKeyFileText, privacyPublicKeyText } from '../node/privacy/privacy-key-file.ts';
import { BESU_TEST_ACCOUNTS } from '../sim/keys.ts';

/** The APIs `network --privacy` adds to the default list. */
export const PRIVACY_APIS = 'PRIV,EEA';

const files = (nodeDataPath: string) => ({
  privateKey: join(nodeDataPath, 'privacy.key'),
  publicKey: join(nodeDataPath, 'privacy.pub'),
  marker: join(nodeDataPath, 'marker.key'),
});

/** Writes validator i's key files unless it has them, and returns its privacy options. */
export function networkPrivacyArgs(nodeDataPath: string, i: number): string[] {
  const f = files(nodeDataPath);
  mkdirSync(nodeDataPath, { recursive: true });
  if (!existsSync(f.privateKey)) {
    const privateKey = new Uint8Array(randomBytes(32));
    writeFileSync(f.privateKey, privacyPrivateKeyFileText(privateKey), { mode: 0o600 });
    writeFileSync(f.publicKey, `${privacyPublicKeyText(privateKey)}\n`);
  }
  const marker = BESU_TEST_ACCOUNTS[i % BESU_TEST_ACCOUNTS.length]!.privateKey;
  if (!existsSync(f.marker)) writeFileSync(f.marker, `0x${Buffer.from(marker).toString('hex')}\n`, { mode: 0o600 });
  return ['--privacy-enabled', '--privacy-public-key-file', f.publicKey, '--privacy-private-key-file', f.privateKey, '--privacy-marker-transaction-signing-key-file', f.marker];
}

/** Validator's privacy public key as kept in its data directory (undefined: none). */
export function networkPrivacyKey(nodeDataPath: string): string | undefined {
  const file = files(nodeDataPath).publicKey;
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}

/**
 * Privacy key files as Tessera wrote them: the public key alone in base64 (`tm.pub`, what Besu's
 * --privacy-public-key-file reads) and the private key as Tessera's unlocked JSON
 * {"type":"unlocked","data":{"bytes":"<base64>"}} (`tm.key`); a bare base64 line is read too.
 * Tessera's password-locked keys are not read.
 */
import { fromBase64, toBase64 } from './private-transaction.ts';
import { privacyPublicKeyOf } from './ptm-crypto.ts';

/** The 32-byte private key a key file holds, or why it holds none. */
export function parsePrivacyPrivateKey(text: string): { privateKey: Uint8Array } | { error: string } {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) {
    const key = fromBase64(trimmed);
    return key ? { privateKey: key } : { error: 'must hold a 32-byte private key in base64, or a Tessera key file' };
  }
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    return { error: 'is not JSON nor a base64 key' };
  }
  const { type, data } = (json ?? {}) as { type?: unknown; data?: { bytes?: unknown } };
  if (type !== 'unlocked') return { error: `holds a Tessera key of type ${JSON.stringify(type)}; only unlocked keys are read` };
  const key = fromBase64(data?.bytes);
  return key ? { privateKey: key } : { error: 'data.bytes must be a 32-byte key in base64' };
}

export function privacyPublicKeyText(privateKey: Uint8Array): string {
  return toBase64(privacyPublicKeyOf(privateKey));
}

/** Tessera's unlocked private key file. */
export function privacyPrivateKeyFileText(privateKey: Uint8Array): string {
  return `${JSON.stringify({ type: 'unlocked', data: { bytes: toBase64(privateKey) } })}\n`;
}

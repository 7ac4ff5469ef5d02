/**
 * JSON-RPC authentication, as Besu's DefaultAuthenticationService / TomlAuth / JWTAuthOptionsFactory
 * do it (hyperledger/besu ethereum/api/.../jsonrpc/authentication/*):
 * - Credentials file (TOML `[Users.<name>]`, `password` = bcrypt hash, `permissions = [...]`):
 *   an RS256 key pair is generated in memory; POST /login `{"username","password"}` →
 *   200 `{"token":"<JWT>"}` (Content-Type application/json; claims permissions, username[,
 *   privacyPublicKey], iat, exp = iat + 5 min); missing fields (or a body that is not a JSON object)
 *   → 400, status message "Bad Request", body "Authentication failed: username and password are
 *   required."; unknown user or wrong password → 401, status message "Unauthorized", body
 *   "Authentication failed: the username or password is incorrect.".
 * - Public key file only (external JWTs): login → 400 status message "Authentication not enabled";
 *   tokens are verified with that key and `algorithm` (default RS256; HS256 takes the file's
 *   trimmed text as the shared secret).
 * - Both files: Besu verifies with the external key while login tokens are signed with the
 *   generated key; reproduced as is (login works, its tokens do not verify).
 * - A token is valid only when its signature checks, it carries `exp` and is not expired.
 *
 * The clock is the injected `nowSeconds` only (jose gets `currentDate` from it).
 */
import { readFile } from 'node:fs/promises';
import { generateKeyPair, importSPKI, jwtVerify, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import bcrypt from 'bcryptjs';
import { parse as parseToml } from 'smol-toml';
import type { AuthOutcome, AuthRequest, HttpAuthHook, PlainResponse } from './http.ts';

export type JwtAlgorithm = 'RS256' | 'RS384' | 'RS512' | 'ES256' | 'ES384' | 'ES512' | 'HS256';
export const JWT_ALGORITHMS: readonly JwtAlgorithm[] = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'HS256'];
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 300;

export const LOGIN_FIELDS_REQUIRED = 'Authentication failed: username and password are required.';
export const LOGIN_INCORRECT = 'Authentication failed: the username or password is incorrect.';

export interface AuthOptions {
  /** TOML `[Users.<name>]` with `password` (bcrypt hash) and `permissions = [...]`. */
  credentialsFile?: string;
  /** PEM (SPKI) public key for external JWTs; with `algorithm`. */
  jwtPublicKeyFile?: string;
  /** Algorithm of the external key; default RS256. */
  algorithm?: JwtAlgorithm;
  nowSeconds: () => number;
  /** Login token lifetime; default 300. */
  tokenLifetimeSeconds?: number;
  /**
   * --rpc-http-api-methods-no-auth. Besu answers 401 at once for a request without a token only
   * when this list is empty; otherwise such a request goes on with no permissions ([]).
   */
  methodsNoAuth?: Iterable<string>;
  /**
   * What an invalid or expired token yields: 'unauthorized' (default; the HTTP layer answers 401)
   * or 'empty' (Besu: the request goes on without a user, so every method not exempt from auth
   * gets the -40100 error from the dispatcher).
   */
  invalidToken?: 'unauthorized' | 'empty';
}

export interface TomlUser {
  password: string;
  permissions: string[];
  privacyPublicKey?: string;
}

/** Parses a Besu credentials TOML into its users (entries without a string password are skipped). */
export function parseCredentials(text: string): Map<string, TomlUser> {
  const doc = parseToml(text) as Record<string, unknown>;
  const users = new Map<string, TomlUser>();
  const table = doc['Users'];
  if (table === null || typeof table !== 'object' || Array.isArray(table)) return users;
  for (const [name, raw] of Object.entries(table as Record<string, unknown>)) {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) continue;
    const entry = raw as Record<string, unknown>;
    if (typeof entry['password'] !== 'string') continue;
    const perms = entry['permissions'];
    const user: TomlUser = {
      password: entry['password'],
      permissions: Array.isArray(perms) ? perms.filter((p): p is string => typeof p === 'string') : [],
    };
    if (typeof entry['privacyPublicKey'] === 'string') user.privacyPublicKey = entry['privacyPublicKey'];
    users.set(name, user);
  }
  return users;
}

/** The injected clock as the Date jose wants (the only Date built here). */
function dateAtSeconds(seconds: number): Date {
  return new Date(seconds * 1000);
}

type VerifyKey = CryptoKey | Uint8Array;

async function loadVerifyKey(file: string, algorithm: JwtAlgorithm): Promise<VerifyKey> {
  const text = await readFile(file, 'utf8');
  if (algorithm === 'HS256') return new TextEncoder().encode(text.trim());
  return importSPKI(text.trim(), algorithm);
}

function permissionsOf(payload: JWTPayload): string[] {
  const p = payload['permissions'];
  return Array.isArray(p) ? p.filter((x): x is string => typeof x === 'string') : [];
}

export async function createAuthHook(opts: AuthOptions): Promise<HttpAuthHook> {
  const now = opts.nowSeconds;
  const lifetime = opts.tokenLifetimeSeconds ?? DEFAULT_TOKEN_LIFETIME_SECONDS;
  const noAuth = [...(opts.methodsNoAuth ?? [])];
  const invalidOutcome: AuthOutcome = opts.invalidToken === 'empty' ? [] : 'unauthorized';

  let users: Map<string, TomlUser> | undefined;
  let signingKey: CryptoKey | undefined;
  let verifyKey: VerifyKey;
  let verifyAlgorithm: JwtAlgorithm;

  if (opts.credentialsFile !== undefined) {
    users = parseCredentials(await readFile(opts.credentialsFile, 'utf8'));
  }
  if (opts.jwtPublicKeyFile !== undefined) {
    verifyAlgorithm = opts.algorithm ?? 'RS256';
    verifyKey = await loadVerifyKey(opts.jwtPublicKeyFile, verifyAlgorithm);
    if (users !== undefined) signingKey = (await generateKeyPair('RS256')).privateKey;
  } else {
    const pair = await generateKeyPair('RS256');
    signingKey = pair.privateKey;
    verifyKey = pair.publicKey;
    verifyAlgorithm = 'RS256';
  }

  async function login(bodyText: string): Promise<PlainResponse> {
    if (users === undefined || signingKey === undefined) {
      return { status: 400, statusMessage: 'Authentication not enabled' };
    }
    let body: unknown;
    try {
      body = JSON.parse(bodyText);
    } catch {
      body = undefined;
    }
    const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
    const username = fields?.['username'];
    const password = fields?.['password'];
    if (username === undefined || username === null || password === undefined || password === null) {
      return { status: 400, statusMessage: 'Bad Request', body: LOGIN_FIELDS_REQUIRED };
    }
    const user = typeof username === 'string' ? users.get(username) : undefined;
    let ok = false;
    if (user !== undefined && typeof password === 'string') {
      try {
        ok = await bcrypt.compare(password, user.password);
      } catch {
        ok = false;
      }
    }
    if (!ok || user === undefined) {
      return { status: 401, statusMessage: 'Unauthorized', body: LOGIN_INCORRECT };
    }
    const iat = Math.floor(now());
    const claims: JWTPayload = { permissions: user.permissions, username };
    if (user.privacyPublicKey !== undefined) claims['privacyPublicKey'] = user.privacyPublicKey;
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setIssuedAt(iat)
      .setExpirationTime(iat + lifetime)
      .sign(signingKey);
    return { status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token }) };
  }

  async function authenticate(req: AuthRequest): Promise<AuthOutcome> {
    const token = req.bearerToken;
    if (token === undefined) return noAuth.length === 0 ? 'unauthorized' : [];
    try {
      const { payload } = await jwtVerify(token, verifyKey, {
        algorithms: [verifyAlgorithm],
        currentDate: dateAtSeconds(now()),
        requiredClaims: ['exp'],
      });
      return permissionsOf(payload);
    } catch {
      return invalidOutcome;
    }
  }

  return { authenticate, login };
}

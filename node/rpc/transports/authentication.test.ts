import test from 'ava';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcryptjs';
import { decodeJwt, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { createAuthHook, LOGIN_FIELDS_REQUIRED, LOGIN_INCORRECT, parseCredentials } from './authentication.ts';
import type { AuthRequest, HttpAuthHook } from './http.ts';

const dir = mkdtempSync(join(tmpdir(), 'qbft-auth-'));
const credentials = join(dir, 'auth.toml');
writeFileSync(
  credentials,
  `[Users.alice]
password = "${bcrypt.hashSync('pegasys', 4)}"
permissions = ["net:*", "eth:blockNumber"]
privacyPublicKey = "A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo="

[Users.bob]
password = "${bcrypt.hashSync('secret', 4)}"
`,
);

const bearer = (token: string | undefined): AuthRequest => ({
  authorization: token === undefined ? undefined : `Bearer ${token}`,
  bearerToken: token,
  headers: {},
});

function clock(start: number): { now: () => number; set: (s: number) => void } {
  let t = start;
  return { now: () => t, set: (s) => { t = s; } };
}

async function loginToken(hook: HttpAuthHook, username: string, password: string): Promise<string> {
  const r = await hook.login(JSON.stringify({ username, password }));
  return (JSON.parse(r.body ?? '') as { token: string }).token;
}

test('parseCredentials reads [Users.<name>]', (t) => {
  const users = parseCredentials(readFileSync(credentials, 'utf8'));
  t.deepEqual(users.get('alice')?.permissions, ['net:*', 'eth:blockNumber']);
  t.deepEqual(users.get('bob')?.permissions, []);
});

test('login: success returns an RS256 JWT with permissions, username, iat and exp = now + 300', async (t) => {
  const c = clock(1_700_000_000);
  const hook = await createAuthHook({ credentialsFile: credentials, nowSeconds: c.now });
  const r = await hook.login('{"username":"alice","password":"pegasys"}');
  t.is(r.status, 200);
  t.is(r.headers?.['Content-Type'], 'application/json');
  const { token } = JSON.parse(r.body ?? '') as { token: string };
  const claims = decodeJwt(token);
  t.deepEqual(claims['permissions'], ['net:*', 'eth:blockNumber']);
  t.is(claims['username'], 'alice');
  t.is(claims['privacyPublicKey'], 'A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo=');
  t.is(claims.iat, 1_700_000_000);
  t.is(claims.exp, 1_700_000_300);
  t.deepEqual(await hook.authenticate(bearer(token)), ['net:*', 'eth:blockNumber']);
});

test('login: missing fields → 400, wrong credentials → 401 (Besu status message + body)', async (t) => {
  const hook = await createAuthHook({ credentialsFile: credentials, nowSeconds: () => 1000 });
  for (const body of ['{"username":"alice"}', '{"password":"pegasys"}', '{}', 'not json', '[]']) {
    t.deepEqual(await hook.login(body), { status: 400, statusMessage: 'Bad Request', body: LOGIN_FIELDS_REQUIRED }, body);
  }
  for (const body of ['{"username":"alice","password":"wrong"}', '{"username":"nobody","password":"pegasys"}', '{"username":"alice","password":1}']) {
    t.deepEqual(await hook.login(body), { status: 401, statusMessage: 'Unauthorized', body: LOGIN_INCORRECT }, body);
  }
});

test('user without permissions gets a token with []', async (t) => {
  const hook = await createAuthHook({ credentialsFile: credentials, nowSeconds: () => 1000 });
  t.deepEqual(await hook.authenticate(bearer(await loginToken(hook, 'bob', 'secret'))), []);
});

test('token accepted until exp, rejected after by moving the injected clock', async (t) => {
  const c = clock(2_000_000_000);
  const hook = await createAuthHook({ credentialsFile: credentials, nowSeconds: c.now });
  const token = await loginToken(hook, 'alice', 'pegasys');
  c.set(2_000_000_299);
  t.deepEqual(await hook.authenticate(bearer(token)), ['net:*', 'eth:blockNumber']);
  c.set(2_000_000_301);
  t.is(await hook.authenticate(bearer(token)), 'unauthorized');
});

test('tokenLifetimeSeconds overrides 300', async (t) => {
  const hook = await createAuthHook({ credentialsFile: credentials, nowSeconds: () => 50, tokenLifetimeSeconds: 10 });
  t.is(decodeJwt(await loginToken(hook, 'alice', 'pegasys')).exp, 60);
});

test('no token, garbage, or a token signed by another key → unauthorized', async (t) => {
  const now = 1_700_000_000;
  const hook = await createAuthHook({ credentialsFile: credentials, nowSeconds: () => now });
  t.is(await hook.authenticate(bearer(undefined)), 'unauthorized');
  t.is(await hook.authenticate(bearer('')), 'unauthorized');
  t.is(await hook.authenticate(bearer('a.b.c')), 'unauthorized');
  const other = await generateKeyPair('RS256');
  const forged = await new SignJWT({ permissions: ['*:*'] }).setProtectedHeader({ alg: 'RS256' }).setIssuedAt(now).setExpirationTime(now + 300).sign(other.privateKey);
  t.is(await hook.authenticate(bearer(forged)), 'unauthorized');
  // another node's login token (different generated key) is refused too
  const otherHook = await createAuthHook({ credentialsFile: credentials, nowSeconds: () => now });
  t.is(await hook.authenticate(bearer(await loginToken(otherHook, 'alice', 'pegasys'))), 'unauthorized');
});

test('methodsNoAuth: no token goes on with []; invalidToken "empty" maps bad tokens to []', async (t) => {
  const hook = await createAuthHook({ credentialsFile: credentials, nowSeconds: () => 1, methodsNoAuth: ['net_version'], invalidToken: 'empty' });
  t.deepEqual(await hook.authenticate(bearer(undefined)), []);
  t.deepEqual(await hook.authenticate(bearer('a.b.c')), []);
});

test('ES256 public-key mode: external tokens verified; login not enabled; exp required', async (t) => {
  const now = 1_800_000_000;
  const es = await generateKeyPair('ES256', { extractable: true });
  const keyFile = join(dir, 'es256.pem');
  writeFileSync(keyFile, await exportSPKI(es.publicKey));
  const c = clock(now);
  const hook = await createAuthHook({ jwtPublicKeyFile: keyFile, algorithm: 'ES256', nowSeconds: c.now });
  t.deepEqual(await hook.login('{"username":"alice","password":"pegasys"}'), { status: 400, statusMessage: 'Authentication not enabled' });

  const good = await new SignJWT({ permissions: ['qbft:*'] }).setProtectedHeader({ alg: 'ES256' }).setIssuedAt(now).setExpirationTime(now + 60).sign(es.privateKey);
  t.deepEqual(await hook.authenticate(bearer(good)), ['qbft:*']);

  const noPerms = await new SignJWT({}).setProtectedHeader({ alg: 'ES256' }).setExpirationTime(now + 60).sign(es.privateKey);
  t.deepEqual(await hook.authenticate(bearer(noPerms)), []);

  const noExp = await new SignJWT({ permissions: ['*:*'] }).setProtectedHeader({ alg: 'ES256' }).sign(es.privateKey);
  t.is(await hook.authenticate(bearer(noExp)), 'unauthorized');

  const otherEs = await generateKeyPair('ES256');
  const foreign = await new SignJWT({ permissions: ['*:*'] }).setProtectedHeader({ alg: 'ES256' }).setExpirationTime(now + 60).sign(otherEs.privateKey);
  t.is(await hook.authenticate(bearer(foreign)), 'unauthorized');

  c.set(now + 61);
  t.is(await hook.authenticate(bearer(good)), 'unauthorized');
});

test('HS256 public-key mode uses the file text as the secret', async (t) => {
  const keyFile = join(dir, 'hs.key');
  writeFileSync(keyFile, 'a-shared-secret-of-at-least-32-bytes!!\n');
  const hook = await createAuthHook({ jwtPublicKeyFile: keyFile, algorithm: 'HS256', nowSeconds: () => 10 });
  const token = await new SignJWT({ permissions: ['eth:*'] }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(100).sign(new TextEncoder().encode('a-shared-secret-of-at-least-32-bytes!!'));
  t.deepEqual(await hook.authenticate(bearer(token)), ['eth:*']);
});

test('the source reads no clock or randomness except the injected one', (t) => {
  const src = readFileSync(fileURLToPath(new URL('./authentication.ts', import.meta.url)), 'utf8');
  t.false(/Date\.now|Math\.random|new Date\(\)|performance\.now|process\.hrtime/.test(src));
});

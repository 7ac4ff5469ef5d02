/**
 * Besu's rules for an HTTP request to its JSON-RPC service (see http.ts): the Host allowlist, the
 * CORS origins, the Accept header, the bearer token, and the declared body size.
 */
import type { IncomingMessage } from 'node:http';

/** Besu's AuthenticationUtils.getJwtTokenFromAuthorizationHeaderValue. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const prefix = 'Bearer ';
  return authorization.startsWith(prefix) ? authorization.slice(prefix.length) : undefined;
}

/** The host part of a Host header (`name[:port]`, `[v6][:port]`), or undefined when malformed. */
export function hostOfHostHeader(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const h = header.trim();
  if (h.length === 0) return undefined;
  let host: string;
  let rest: string;
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    if (end < 0) return undefined;
    host = h.slice(0, end + 1);
    rest = h.slice(end + 1);
  } else {
    const colon = h.indexOf(':');
    host = colon < 0 ? h : h.slice(0, colon);
    rest = colon < 0 ? '' : h.slice(colon);
  }
  if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return undefined;
  if (host.length === 0 || /[\s/?#@]/.test(host)) return undefined;
  return host;
}

/** Besu's host allowlist rule. */
export function hostAllowed(allowlist: readonly string[], hostHeader: string | undefined): boolean {
  if (allowlist.includes('*')) return true;
  const host = hostOfHostHeader(hostHeader);
  if (host === undefined) return false;
  const lower = host.toLowerCase();
  return allowlist.some((entry) => entry.toLowerCase() === lower);
}

/** Besu's buildCorsRegexFromConfig. */
export function corsRegex(origins: readonly string[]): RegExp {
  let source: string;
  if (origins.length === 0) source = '';
  else if (origins.includes('*')) source = '.*://.*|.*';
  else source = origins.filter((s) => s.length > 0).join('|');
  // Java's Matcher.matches(): the whole input.
  return new RegExp(`^(?:${source})$`, 's');
}

/** Does an Accept header admit application/json (Vert.x `produces`)? Absent or empty → yes. */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  for (const part of accept.split(',')) {
    const [typeRaw, ...params] = part.split(';');
    const type = typeRaw!.trim().toLowerCase();
    if (type === '') continue;
    const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) continue;
    if (type === '*/*' || type === '*' || type === 'application/*' || type === 'application/json') return true;
  }
  return false;
}

/** What Vert.x's CorsHandler (configured as Besu does) makes of a request. */
export type CorsOutcome =
  | { kind: 'continue'; headers: Record<string, string> }
  | { kind: 'preflight'; headers: Record<string, string> }
  | { kind: 'reject' };

/** Besu's CORS step for a request's Origin, method and Access-Control-Request-Method. */
export function corsOutcome(allowed: RegExp, origin: string | undefined, method: string | undefined, requestMethod: string | undefined): CorsOutcome {
  if (origin === undefined) return { kind: 'continue', headers: { Vary: 'origin' } };
  if (!allowed.test(origin)) return { kind: 'reject' };
  if (method === 'OPTIONS' && requestMethod !== undefined) {
    return { kind: 'preflight', headers: { 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Headers': '*,content-type' } };
  }
  return { kind: 'continue', headers: { Vary: 'origin', 'Access-Control-Allow-Origin': origin } };
}

/** Vert.x BodyHandler's up-front check: a declared Content-Length over the limit. */
export function declaredTooLarge(req: IncomingMessage, limit: number): boolean {
  const len = req.headers['content-length'];
  return len !== undefined && /^\d+$/.test(len) && Number(len) > limit;
}

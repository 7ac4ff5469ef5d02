/**
 * The HTTP endpoint's routes besides JSON-RPC's `POST /` (http.ts), on node:http's request and
 * response, after the Host check: CORS (a refused Origin 403, a preflight 204), the declared body
 * limit (413), then `GET /` → 201, `GET /liveness` and `GET /readiness` → Besu's health answers,
 * `POST /login` → the auth hook's login; a known path with another method → 405 with `Allow`, an
 * unknown one → Vert.x's 404 page. HEAD is answered as GET (without the body).
 *
 * The path is the request target's with dot segments resolved and percent-encoding decoded (as
 * decodeURI does: `%2F` stays), so `/x/../liveness` and `/livenes%73` are `/liveness`; the target
 * may be absolute (`http://host/liveness`). A target that names no path (`*`), one with a
 * backslash before its query, or one whose Host does not make a URL gets 400 with an empty body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { healthBody, healthStatus, LIVENESS_PATH, READINESS_PATH } from './health.ts';
import { BodyTooLarge, CORS_REJECTED, readRequestBody, TOO_LARGE, writeRaw, type RawReply } from './http-reply.ts';
import { acceptsJson, corsOutcome, declaredTooLarge } from './http-rules.ts';
import type { HealthSource, HttpAuthHook } from './http.ts';

const NOT_FOUND_BODY = '<html><body><h1>Resource not found</h1></body></html>';

/** The methods each known path answers (405 names them). */
const ROUTE_METHODS: Record<string, string[]> = {
  '/': ['GET', 'POST'],
  [LIVENESS_PATH]: ['GET'],
  [READINESS_PATH]: ['GET'],
  '/login': ['POST'],
};

/** What the routes need of the endpoint's settings. */
export interface OtherRoutesSettings {
  cors: RegExp;
  maxRequestBytes: number;
  health: HealthSource;
  auth?: HttpAuthHook;
  onError: (error: unknown) => void;
}

interface RouteTarget {
  path: string;
  query: URLSearchParams;
}

/** decodeURI, keeping `%25` encoded; invalid sequences stay as they are. */
function decodePath(path: string): string {
  const decode = (s: string) => decodeURI(s.replace(/%25/g, '%2525'));
  try {
    return decode(path);
  } catch {
    return path.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
      try {
        return decode(run);
      } catch {
        return run;
      }
    });
  }
}

/** The path and query a request target names, or undefined when it names none (400). */
export function routeTarget(url: string, host: string | undefined): RouteTarget | undefined {
  const absolute = url.startsWith('http://') || url.startsWith('https://');
  if (!absolute && !url.startsWith('/')) return undefined;
  const query = url.indexOf('?');
  const backslash = url.indexOf('\\');
  if (backslash >= 0 && (query < 0 || backslash < query)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(absolute ? url : `http://${host ?? 'localhost'}${url}`);
  } catch {
    return undefined;
  }
  const path = parsed.pathname.includes('%') ? decodePath(parsed.pathname) : parsed.pathname;
  return { path, query: parsed.searchParams };
}

/** The readiness query parameters, raw (undefined when absent). */
function readinessQuery(query: URLSearchParams): { minPeers?: string; maxBlocksBehind?: string } {
  const out: { minPeers?: string; maxBlocksBehind?: string } = {};
  const minPeers = query.get('minPeers');
  const maxBlocksBehind = query.get('maxBlocksBehind');
  if (minPeers !== null) out.minPeers = minPeers;
  if (maxBlocksBehind !== null) out.maxBlocksBehind = maxBlocksBehind;
  return out;
}

/** A health check's answer; a failing check counts as down. */
async function healthReply(s: OtherRoutesSettings, check: () => Promise<boolean> | boolean): Promise<RawReply> {
  let up: boolean;
  try {
    up = await check();
  } catch (e) {
    s.onError(e);
    up = false;
  }
  return { status: healthStatus(up), body: healthBody(up) };
}

/** POST /login: the auth hook's answer to the body; undefined when the client went away. */
async function loginReply(s: OtherRoutesSettings, req: IncomingMessage): Promise<RawReply | undefined> {
  if (!acceptsJson(req.headers['accept'])) return { status: 406 };
  if (s.auth === undefined) return { status: 400, statusMessage: 'Authentication not enabled' };
  let text: string;
  try {
    text = (await readRequestBody(req, s.maxRequestBytes)).toString('utf8');
  } catch (e) {
    return e instanceof BodyTooLarge ? TOO_LARGE : undefined;
  }
  const r = await s.auth.login(text);
  return { status: r.status, body: r.body ?? '', ...(r.statusMessage !== undefined ? { statusMessage: r.statusMessage } : {}), ...(r.headers ? { headers: r.headers } : {}) };
}

async function routeReply(s: OtherRoutesSettings, req: IncomingMessage, target: RouteTarget): Promise<RawReply | undefined> {
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  const { path } = target;
  if (method === 'GET' && path === '/') return { status: 201 };
  if (method === 'GET' && path === LIVENESS_PATH) return healthReply(s, () => s.health.liveness());
  if (method === 'GET' && path === READINESS_PATH) return healthReply(s, () => s.health.readiness(readinessQuery(target.query)));
  if (method === 'POST' && path === '/login') return loginReply(s, req);
  const allowed = ROUTE_METHODS[path];
  if (allowed === undefined) return { status: 404, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: NOT_FOUND_BODY };
  return { status: 405, headers: { Allow: allowed.join(',') } };
}

/** Serves a request for any route but JSON-RPC's POST / (the Host check has passed). */
export function otherRoutes(s: OtherRoutesSettings): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const target = routeTarget(req.url ?? '', req.headers.host);
    if (target === undefined) {
      res.writeHead(400);
      res.end();
      return;
    }
    const corsStep = corsOutcome(s.cors, req.headers['origin'], req.method, req.headers['access-control-request-method']);
    if (corsStep.kind === 'reject') return writeRaw(req, res, CORS_REJECTED);
    if (corsStep.kind === 'preflight') return writeRaw(req, res, { status: 204, headers: corsStep.headers });
    const extra = corsStep.headers;
    if (declaredTooLarge(req, s.maxRequestBytes)) return writeRaw(req, res, TOO_LARGE, extra);
    let reply: RawReply | undefined;
    try {
      reply = await routeReply(s, req, target);
    } catch (e) {
      s.onError(e);
      reply = { status: 500, body: 'Internal Server Error' };
    }
    if (reply !== undefined) writeRaw(req, res, reply, extra);
  };
}

/**
 * JSON-RPC over HTTP, as Besu's JsonRpcHttpService serves it (hono on @hono/node-server).
 *
 * Besu facts (hyperledger/besu 3fd224e2: ethereum/api/.../jsonrpc/JsonRpcHttpService.java,
 * handlers/{JsonRpcParserHandler,JsonRpcExecutorHandler,AbstractJsonRpcExecutor,TimeoutHandler,
 * AuthenticationHandler}.java, health/HealthService.java, exception/Logging403ErrorHandler.java,
 * authentication/DefaultAuthenticationService.java; Vert.x web 4.5.24 CorsHandlerImpl,
 * BodyHandlerImpl, RoutingContextImpl, RouteState):
 * - Every request, whatever the path, first passes the Host check (`--host-allowlist`, default
 *   localhost,127.0.0.1; `*` = any; the Host header's host part compared case-insensitively; no
 *   Host → refused): 403 `{"message":"Host not authorized."}` with
 *   `Content-Type: application/json; charset=utf-8`.
 * - Then CORS (Vert.x CorsHandler with the regex Besu builds from `--rpc-http-cors-origins`:
 *   none → "" which matches only an empty Origin; `*` → `.*://.*|.*`; else the entries joined with
 *   `|`, each a regex matched against the whole Origin):
 *   no Origin → continue (with `Vary: origin`); allowed Origin → `Access-Control-Allow-Origin:
 *   <origin>` and `Vary: origin`, and a preflight (OPTIONS with Access-Control-Request-Method)
 *   answers 204 with `Access-Control-Allow-Headers: *,content-type` and `Content-Length: 0`;
 *   other Origin → 403 "CORS Rejected - Invalid origin" (status line), body
 *   "Exception thrown handling RPC".
 * - Then the body limit (`--rpc-http-max-request-content-length`, default 128 MiB:
 *   JsonRpcConfiguration.DEFAULT_MAX_REQUEST_CONTENT_LENGTH and cli/DefaultCommandValues, both
 *   `128 * 1024 * 1024`; JsonRpcHttpService passes it to BodyHandler.setBodyLimit): over it, 413
 *   with body "Request Entity Too Large" (RoutingContextImplBase.unhandledFailure). A declared
 *   Content-Length over the limit is refused before any of the body is read (BodyHandlerImpl
 *   checks it first); a chunked body, as soon as it passes the limit (at most the limit is kept).
 *   Vert.x keeps such a connection open; here it ends (closeWithUnreadBody): no more of the body
 *   is read, and the socket goes once the client closes, or 1 s after the 413.
 * - Routes: GET / → 201, empty; GET /liveness and GET /readiness → 200/503 with the pretty JSON
 *   status body (no Content-Type); POST / (produces application/json: an Accept header that
 *   admits no application/json → 406) → optional authentication (no token → 401 with the -40100
 *   body) → the dispatcher, whose answer goes out with `Content-Type: application/json` and the
 *   dispatcher's HTTP status (empty body for notifications); POST /login → the auth hook's login,
 *   or 400 "Authentication not enabled" (status line) when authentication is off.
 *   Unknown path → 404 `<html><body><h1>Resource not found</h1></body></html>`
 *   (text/html; charset=utf-8); known path, wrong method → 405 with `Allow`.
 * - A request still running after the HTTP timeout (30 s, --Xhttp-timeout-seconds) → 504 "Gateway
 *   Timeout" and the connection is closed (TimeoutHandler fires before JsonRpcExecutorHandler's 408
 *   timer); a batch, which TimeoutHandler does not time, → 408 with -32603 "Timeout expired". Its
 *   work is given up then (request-budget.ts), and when the client closes the connection first.
 * - Connections beyond `--rpc-http-max-active-connections` (80) are closed at once.
 * Beyond Besu (timeouts.ts): a request must arrive whole in time (head 10 s, all of it 30 s, from
 * its first byte) or it gets 408 and the connection closes, and an idle keep-alive connection
 * closes after 5 s, so that clients that trickle or stall cannot hold the 80 connections; Besu
 * (Vert.x idle timeout 0) keeps such connections open forever.
 * Not reproduced: response compression (Vert.x gzips when asked), TLS, tracing spans; and Besu's
 * parser-level 400s (bad JSON, empty batch) carry no Content-Type, here they say application/json
 * like every other dispatcher answer.
 *
 * Implementation, three layers: (1) http1-fast.ts reads each connection's requests itself and
 * answers the plain keep-alive `POST /` (the hot JSON-RPC route) with one socket write, after the
 * same Host, CORS, Accept and body-limit checks, decided on the raw head (about 20 µs of CPU per
 * eth_blockNumber against about 90 µs through node:http and hono before it); (2) whatever it does
 * not serve goes to node:http, whose listener does the Host check, then sends `POST /` to a
 * handler working on Node's request/response directly, and (3) every other request to the hono
 * app. All node:http responses are written on the raw Node response so that headers are exactly
 * Besu's (@hono/node-server would add a default Content-Type), and the fast path writes the same
 * bytes (http1-fast.test.ts compares them).
 */
import { listenOn } from './listen.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Hono, type Context } from 'hono';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { formatErrorType, type DispatchResult, type Dispatcher, type RpcContext } from '../dispatcher.ts';
import { healthBody, healthStatus, LIVENESS_PATH, READINESS_PATH } from './health.ts';
import { installFastFrontEnd, type FastReply, type FastRoute } from './http1-fast.ts';
import { applyHttpTimeouts, httpServerTimerOptions, resolveHttpTimeouts, type HttpTimeouts } from './timeouts.ts';
import { RequestAbandonedError, withRequestSignal } from '../off-loop/request-budget.ts';

export const DEFAULT_HOST_ALLOWLIST: readonly string[] = ['localhost', '127.0.0.1'];
/** Besu's --rpc-http-max-request-content-length default (JsonRpcConfiguration, DefaultCommandValues). */
export const DEFAULT_MAX_REQUEST_BYTES = 128 * 1024 * 1024;
export const DEFAULT_MAX_ACTIVE_CONNECTIONS = 80;
export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;

export const HOST_NOT_AUTHORIZED_BODY = '{"message":"Host not authorized."}';
/** `{"jsonrpc":"2.0","id":null,"error":{"code":-40100,"message":"Unauthorized"}}` */
export const UNAUTHORIZED_BODY = formatErrorType(null, 'UNAUTHORIZED');
const INTERNAL_ERROR_BODY = formatErrorType(null, 'INTERNAL_ERROR');

/**
 * Besu's answer to a request that overran its time. A single request: TimeoutHandler's 504 (it
 * times requests whose body is one JSON object). A batch: TimeoutHandler has no timer for it, so
 * JsonRpcExecutorHandler's answers, 408 with TIMEOUT_ERROR (AbstractJsonRpcExecutor.statusCodeFromError).
 */
function timeoutReply(text: string): { status: number; headers?: Record<string, string>; body: string } {
  if (text.trimStart().startsWith('[')) return { status: 408, headers: { 'Content-Type': 'application/json' }, body: formatErrorType(null, 'TIMEOUT_ERROR') };
  return { status: 504, body: 'Gateway Timeout' };
}
const NOT_FOUND_BODY = '<html><body><h1>Resource not found</h1></body></html>';

export interface HealthSource {
  liveness(): Promise<boolean> | boolean;
  /** Raw query parameters (undefined when absent). */
  readiness(query: { minPeers?: string; maxBlocksBehind?: string }): Promise<boolean> | boolean;
}

/** What the authentication layer sees of a request. */
export interface AuthRequest {
  /** The raw Authorization header. */
  authorization: string | undefined;
  /** Besu's AuthenticationUtils: the token after a leading "Bearer ", else undefined. */
  bearerToken: string | undefined;
  headers: IncomingMessage['headers'];
}

export type AuthOutcome = string[] | 'unauthorized';

export interface PlainResponse {
  status: number;
  body?: string;
  /** Reason phrase on the status line (Besu sets some, e.g. "Authentication not enabled"). */
  statusMessage?: string;
  headers?: Record<string, string>;
}

/**
 * The authentication hook (issue 3 item 7 fills it). `authenticate` runs before the body is
 * parsed: 'unauthorized' answers 401 with the -40100 body (Besu: no token and no
 * --rpc-http-api-methods-no-auth); otherwise the permissions (empty for an invalid token: the
 * dispatcher then refuses every method not exempt from auth) go to the dispatcher in RpcContext.
 */
export interface HttpAuthHook {
  authenticate(request: AuthRequest): Promise<AuthOutcome> | AuthOutcome;
  /** POST /login with the raw body text. */
  login(bodyText: string): Promise<PlainResponse> | PlainResponse;
}

export interface HttpRpcOptions {
  host: string;
  /** 0 for an ephemeral port. */
  port: number;
  /** `dispatchText`, when there, answers at once what needs no waiting (Dispatcher has it). */
  dispatcher: Pick<Dispatcher, 'handleText'> & Partial<Pick<Dispatcher, 'dispatchText'>>;
  /** --rpc-http-cors-origins; default none (no CORS: any request with an Origin is refused). */
  corsOrigins?: string[];
  /** --host-allowlist; default ['localhost', '127.0.0.1']; '*' allows any. */
  hostAllowlist?: string[];
  /** --rpc-http-max-request-content-length; default 128 MiB. */
  maxRequestBytes?: number;
  /** --rpc-http-max-active-connections; default 80. */
  maxActiveConnections?: number;
  /** Besu's HTTP timeout (a request's execution); default 30 s. */
  timeoutMs?: number;
  /** Slow-client timers (timeouts.ts); default head 10 s, request 30 s, keep-alive 5 s; 0 turns one off. */
  timeouts?: Partial<HttpTimeouts>;
  /** Default: always healthy. */
  health?: HealthSource;
  auth?: HttpAuthHook;
  /** Unexpected failures (a throwing dispatcher or health check). Default: console.error. */
  onError?: (error: unknown) => void;
}

export interface HttpRpcServer {
  /** The bound port (the ephemeral one when port 0 was asked). */
  port: number;
  host: string;
  /** Open TCP connections: what --rpc-http-max-active-connections counts. */
  socketCount(): number;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

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
function declaredTooLarge(req: IncomingMessage, limit: number): boolean {
  const len = req.headers['content-length'];
  return len !== undefined && /^\d+$/.test(len) && Number(len) > limit;
}

interface RawReply {
  status: number;
  headers?: Record<string, string | number>;
  body?: string;
  statusMessage?: string;
  closeConnection?: boolean;
  /**
   * A refusal with the body unread: end the connection with closeWithUnreadBody (not with
   * Connection: close, on which node:http closes at once).
   */
  unreadBody?: boolean;
}

/** How long a refused connection may linger for the client to read the refusal (closeWithUnreadBody). */
export const REFUSAL_LINGER_MS = 1000;

/**
 * Ends a connection after a refusal that left the request body unread (413): reading stops, our
 * side ends at once (the client reads the refusal, then the end) and the connection goes when
 * the client closes, or after REFUSAL_LINGER_MS. Closing at once with unread bytes would make the
 * kernel reset the connection, and a client still sending then gets the reset, not the answer.
 */
export function closeWithUnreadBody(req: IncomingMessage, res: ServerResponse): void {
  res.once('finish', () => {
    req.pause(); // after node:http's own finish step, which may have resumed it to discard the body
    const socket = req.socket;
    socket.end();
    const timer = setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
}

/** Writes a response exactly as given (no default headers added). */
function writeRaw(req: IncomingMessage, res: ServerResponse, r: RawReply, extraHeaders?: Record<string, string>): void {
  if (res.headersSent || res.writableEnded || res.destroyed) return;
  const body = r.body ?? '';
  const headers: Record<string, string | number> = extraHeaders === undefined ? { ...r.headers } : { ...extraHeaders, ...r.headers };
  headers['Content-Length'] = Buffer.byteLength(body);
  if (r.closeConnection) headers['Connection'] = 'close';
  if (r.statusMessage !== undefined) res.statusMessage = r.statusMessage;
  res.writeHead(r.status, headers);
  res.end(body);
  if (r.closeConnection) res.once('finish', () => req.socket.destroySoon());
  if (r.unreadBody) closeWithUnreadBody(req, res);
}

const CORS_REJECTED: RawReply = { status: 403, statusMessage: 'CORS Rejected - Invalid origin', body: 'Exception thrown handling RPC' };
/** Netty's reason phrase for 413 (HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE), also the body. */
export const TOO_LARGE_REASON = 'Request Entity Too Large';
const TOO_LARGE: RawReply = { status: 413, statusMessage: TOO_LARGE_REASON, body: TOO_LARGE_REASON, unreadBody: true };

type Env = { Bindings: HttpBindings; Variables: { extraHeaders: Record<string, string> } };

/** Writes the response through the raw Node response (exact headers) and tells hono it is sent. */
function reply(c: Context<Env>, r: RawReply): Response {
  writeRaw(c.env.incoming, c.env.outgoing, r, c.var.extraHeaders);
  return RESPONSE_ALREADY_SENT;
}

/** A request body passed its limit (readRequestBody). */
export class BodyTooLarge extends Error {}

/**
 * Reads the request body up to `limit` bytes; past it, stops reading (the stream is paused) and
 * rejects with BodyTooLarge: answer 413 and end the connection with closeWithUnreadBody.
 */
export function readRequestBody(incoming: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        // Read no more: the 413 ends the connection (closeWithUnreadBody), the rest is never read.
        incoming.pause();
        chunks.length = 0;
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (e: Error): void => {
      cleanup();
      reject(e);
    };
    const onAborted = (): void => {
      cleanup();
      reject(new Error('request aborted'));
    };
    const cleanup = (): void => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('aborted', onAborted);
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('aborted', onAborted);
  });
}

const ROUTE_METHODS: Record<string, string[]> = {
  '/': ['GET', 'POST'],
  [LIVENESS_PATH]: ['GET'],
  [READINESS_PATH]: ['GET'],
  '/login': ['POST'],
};

function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

export async function startHttpRpc(opts: HttpRpcOptions): Promise<HttpRpcServer> {
  const allowlist = opts.hostAllowlist ?? [...DEFAULT_HOST_ALLOWLIST];
  const cors = corsRegex(opts.corsOrigins ?? []);
  const maxRequestBytes = opts.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  const maxActiveConnections = opts.maxActiveConnections ?? DEFAULT_MAX_ACTIVE_CONNECTIONS;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  const timeouts = resolveHttpTimeouts(opts.timeouts);
  const onError = opts.onError ?? ((e: unknown) => console.error('JSON-RPC HTTP:', e));
  const health: HealthSource = opts.health ?? { liveness: () => true, readiness: () => true };
  if (!(Number.isSafeInteger(maxActiveConnections) && maxActiveConnections > 0)) throw new RangeError('Invalid max active connections configuration.');
  if (!(maxRequestBytes >= 0)) throw new RangeError('maxRequestBytes must be >= 0');

  /** Besu's authentication step: the caller's permissions, or 'unauthorized'. */
  const authenticate = async (headers: IncomingMessage['headers']): Promise<AuthOutcome> => {
    const authorization = headers['authorization'];
    try {
      return await opts.auth!.authenticate({ authorization, bearerToken: bearerToken(authorization), headers });
    } catch (e) {
      onError(e);
      return 'unauthorized';
    }
  };

  /** The dispatcher's answer to a request body (a throwing dispatcher answers -32603). */
  const dispatch = async (text: string, permissions: string[] | undefined, signal: AbortSignal): Promise<{ status: number; body: string }> => {
    const ctx: RpcContext = { transport: 'http' };
    if (permissions !== undefined) ctx.permissions = permissions;
    try {
      const result = await withRequestSignal(signal, () => opts.dispatcher.handleText(text, ctx));
      return { status: result.httpStatus, body: result.body ?? '' };
    } catch (e) {
      onError(e);
      return { status: 200, body: INTERNAL_ERROR_BODY };
    }
  };

  /**
   * POST / as node:http hands it over (what the fast front end below does not serve itself:
   * a query string, HTTP/1.0, chunked bodies, ...), after the same Host, CORS and body-limit
   * steps as every route, on Node's request/response rather than hono's Request/Response.
   */
  const handleRpcPost = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const corsStep = corsOutcome(cors, req.headers['origin'], req.method, req.headers['access-control-request-method']);
    if (corsStep.kind === 'reject') return writeRaw(req, res, CORS_REJECTED);
    const extra = corsStep.headers;
    if (declaredTooLarge(req, maxRequestBytes)) return writeRaw(req, res, TOO_LARGE, extra);
    if (!acceptsJson(req.headers['accept'])) return writeRaw(req, res, { status: 406 }, extra);
    let permissions: string[] | undefined;
    if (opts.auth !== undefined) {
      const outcome = await authenticate(req.headers);
      if (outcome === 'unauthorized') return writeRaw(req, res, { status: 401, body: UNAUTHORIZED_BODY }, extra);
      permissions = outcome;
    }
    let text: string;
    try {
      text = (await readRequestBody(req, maxRequestBytes)).toString('utf8');
    } catch (e) {
      if (e instanceof BodyTooLarge) writeRaw(req, res, TOO_LARGE, extra);
      return; // otherwise the client went away
    }
    const serving = new AbortController();
    const onClose = () => serving.abort(new RequestAbandonedError('the client closed its connection'));
    res.once('close', onClose);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const result = await Promise.race([dispatch(text, permissions, serving.signal), timedOut]);
      if (result === 'timeout') {
        serving.abort(new RequestAbandonedError('Timeout expired'));
        const reply = timeoutReply(text);
        return writeRaw(req, res, { status: reply.status, headers: reply.headers, body: reply.body, closeConnection: true }, extra);
      }
      writeRaw(req, res, { status: result.status, headers: { 'Content-Type': 'application/json' }, body: result.body }, extra);
    } finally {
      clearTimeout(timer);
      res.off('close', onClose);
    }
  };

  /**
   * POST / served by the fast front end (http1-fast.ts): the same steps and answers, decided on
   * the raw head. Whatever it does not admit goes to node:http, hence to the code above.
   */
  const hostVerdicts = new Map<string | undefined, boolean>();
  const acceptVerdicts = new Map<string | undefined, boolean>();
  const originPrefixes = new Map<string, string | undefined>();
  const remember = <K, V>(map: Map<K, V>, key: K, value: V): V => {
    if (map.size >= 256) map.clear();
    map.set(key, value);
    return value;
  };
  const jsonReply = (answer: { status: number; body: string }): FastReply => ({ status: answer.status, headerLines: 'Content-Type: application/json\r\n', body: answer.body });
  const dispatchReply = (result: DispatchResult): FastReply => ({ status: result.httpStatus, headerLines: 'Content-Type: application/json\r\n', body: result.body ?? '' });
  const serveAuthenticated = async (headers: IncomingMessage['headers'], body: Buffer, signal: AbortSignal): Promise<FastReply> => {
    const outcome = await authenticate(headers);
    if (outcome === 'unauthorized') return { status: 401, body: UNAUTHORIZED_BODY };
    return jsonReply(await dispatch(body.toString('utf8'), outcome, signal));
  };
  const fastRoute: FastRoute = {
    timeoutMs,
    timeoutReply: (body) => {
      const reply = timeoutReply(body.toString('utf8'));
      return { status: reply.status, headerLines: reply.headers ? 'Content-Type: application/json\r\n' : undefined, body: reply.body, close: true };
    },
    admit(request) {
      const h = request.headers;
      const host = h.host;
      if (!(hostVerdicts.get(host) ?? remember(hostVerdicts, host, hostAllowed(allowlist, host)))) return undefined;
      if (request.contentLength > maxRequestBytes) return undefined;
      const accept = h.accept;
      if (!(acceptVerdicts.get(accept) ?? remember(acceptVerdicts, accept, acceptsJson(accept)))) return undefined;
      const origin = h.origin;
      if (origin === undefined) return 'Vary: origin\r\n';
      let prefix = originPrefixes.get(origin);
      if (prefix === undefined && !originPrefixes.has(origin)) {
        // Refused origins, and origins that are not plain ASCII, are node:http's to answer.
        const step = /^[\x20-\x7e]*$/.test(origin) ? corsOutcome(cors, origin, 'POST', undefined) : undefined;
        prefix = step?.kind === 'continue' ? `Vary: origin\r\nAccess-Control-Allow-Origin: ${origin}\r\n` : undefined;
        remember(originPrefixes, origin, prefix);
      }
      return prefix;
    },
    serve(request, body, signal) {
      if (opts.auth !== undefined) return serveAuthenticated(request.headers, body, signal);
      const text = body.toString('utf8');
      const dispatchText = opts.dispatcher.dispatchText;
      if (dispatchText === undefined) return dispatch(text, undefined, signal).then(jsonReply);
      let answer: DispatchResult | Promise<DispatchResult>;
      try {
        answer = withRequestSignal(signal, () => dispatchText.call(opts.dispatcher, text, { transport: 'http' }));
      } catch (e) {
        onError(e);
        return jsonReply({ status: 200, body: INTERNAL_ERROR_BODY });
      }
      if (answer instanceof Promise) {
        return answer.then(dispatchReply, (e: unknown) => {
          onError(e);
          return jsonReply({ status: 200, body: INTERNAL_ERROR_BODY });
        });
      }
      return dispatchReply(answer);
    },
  };

  // Every other route goes through hono.
  const app = new Hono<Env>();

  // CORS (the Host check ran before hono, in the raw listener below).
  app.use('*', async (c, next) => {
    const incoming = c.env.incoming;
    const corsStep = corsOutcome(cors, incoming.headers['origin'], incoming.method, incoming.headers['access-control-request-method']);
    c.set('extraHeaders', {});
    if (corsStep.kind === 'reject') return reply(c, CORS_REJECTED);
    if (corsStep.kind === 'preflight') return reply(c, { status: 204, headers: corsStep.headers });
    c.set('extraHeaders', corsStep.headers);
    return next();
  });

  // Body limit by Content-Length (Vert.x BodyHandler runs for every route).
  app.use('*', async (c, next) => {
    if (declaredTooLarge(c.env.incoming, maxRequestBytes)) return reply(c, TOO_LARGE);
    return next();
  });

  app.get('/', (c) => reply(c, { status: 201 }));

  app.get(LIVENESS_PATH, async (c) => {
    let up: boolean;
    try {
      up = await health.liveness();
    } catch (e) {
      onError(e);
      up = false;
    }
    return reply(c, { status: healthStatus(up), body: healthBody(up) });
  });

  app.get(READINESS_PATH, async (c) => {
    const query: { minPeers?: string; maxBlocksBehind?: string } = {};
    const minPeers = c.req.query('minPeers');
    const maxBlocksBehind = c.req.query('maxBlocksBehind');
    if (minPeers !== undefined) query.minPeers = minPeers;
    if (maxBlocksBehind !== undefined) query.maxBlocksBehind = maxBlocksBehind;
    let up: boolean;
    try {
      up = await health.readiness(query);
    } catch (e) {
      onError(e);
      up = false;
    }
    return reply(c, { status: healthStatus(up), body: healthBody(up) });
  });

  app.post('/login', async (c) => {
    if (!acceptsJson(c.env.incoming.headers['accept'])) return reply(c, { status: 406 });
    if (opts.auth === undefined) return reply(c, { status: 400, statusMessage: 'Authentication not enabled' });
    let text: string;
    try {
      text = (await readRequestBody(c.env.incoming, maxRequestBytes)).toString('utf8');
    } catch (e) {
      if (e instanceof BodyTooLarge) return reply(c, TOO_LARGE);
      return RESPONSE_ALREADY_SENT;
    }
    const r = await opts.auth.login(text);
    return reply(c, { status: r.status, body: r.body ?? '', ...(r.statusMessage !== undefined ? { statusMessage: r.statusMessage } : {}), ...(r.headers ? { headers: r.headers } : {}) });
  });

  app.notFound((c) => {
    const allowed = ROUTE_METHODS[c.req.path];
    if (allowed === undefined) return reply(c, { status: 404, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: NOT_FOUND_BODY });
    return reply(c, { status: 405, headers: { Allow: allowed.join(',') } });
  });

  app.onError((e, c) => {
    onError(e);
    return reply(c, { status: 500, body: 'Internal Server Error' });
  });

  const honoListener = getRequestListener(app.fetch);

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    // The Host check comes before everything (and before @hono/node-server validates the Host).
    if (!hostAllowed(allowlist, req.headers.host)) {
      const body = HOST_NOT_AUTHORIZED_BODY;
      res.writeHead(403, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    if (req.method === 'POST' && pathOf(req.url) === '/') {
      void handleRpcPost(req, res).catch(onError);
      return;
    }
    void honoListener(req, res);
  };

  // requireHostHeader: false so that a request without Host gets Besu's 403 rather than Node's 400.
  const server: Server = createServer({ requireHostHeader: false, ...httpServerTimerOptions(timeouts) }, listener);
  server.maxConnections = maxActiveConnections;
  applyHttpTimeouts(server, timeouts); // before the fast path, which reads them off the server
  const fast = installFastFrontEnd(server, fastRoute);
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });

  const port = await listenOn(server, opts.host, opts.port, 'Ethereum JSON-RPC');

  let closing: Promise<void> | undefined;
  return {
    port,
    host: opts.host,
    socketCount: () => sockets.size,
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        fast.stop();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

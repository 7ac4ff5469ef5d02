/**
 * JSON-RPC over HTTP, as Besu's JsonRpcHttpService serves it (node:http, with a fast front end for
 * the JSON-RPC route).
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
 * Implementation, two layers: (1) http1-fast.ts reads each connection's requests itself and
 * answers the plain keep-alive `POST /` (the hot JSON-RPC route) with one socket write, after the
 * same Host, CORS, Accept and body-limit checks, decided on the raw head; (2) whatever it does not
 * serve goes to node:http, whose listener does the Host check, then sends `POST /` to the JSON-RPC
 * handler and every other request to the route handler, both working on Node's request/response
 * directly. Responses are written with exactly Besu's headers, and the fast path writes the same
 * bytes as node:http (http1-fast.test.ts compares them). The front end is kept because it is worth
 * it: `npm run bench:rpc -- --only stacks` measures the stacks in one run (test/bench-http-stacks.ts;
 * at 32 connections it answered eth_blockNumber at 2.5 to 4 times node:http's rate, a batch of 10
 * at 1.7 to 2 times, eth_call alike within the noise). A third stack, hono on @hono/node-server,
 * never beat node:http there and was removed.
 */
import { listenOn } from './listen.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Dispatcher } from '../dispatcher.ts';
import { installFastFrontEnd } from './http1-fast.ts';
import { jsonRpcRoute } from './http-json-rpc.ts';
import { otherRoutes } from './http-routes.ts';
import { corsRegex, hostAllowed } from './http-rules.ts';
import { applyHttpTimeouts, httpServerTimerOptions, resolveHttpTimeouts, type HttpTimeouts } from './timeouts.ts';

export { acceptsJson, bearerToken, corsOutcome, corsRegex, hostAllowed, hostOfHostHeader, type CorsOutcome } from './http-rules.ts';
export { BodyTooLarge, closeWithUnreadBody, readRequestBody, REFUSAL_LINGER_MS, TOO_LARGE_REASON } from './http-reply.ts';
export { UNAUTHORIZED_BODY } from './http-json-rpc.ts';

export const DEFAULT_HOST_ALLOWLIST: readonly string[] = ['localhost', '127.0.0.1'];
/** Besu's --rpc-http-max-request-content-length default (JsonRpcConfiguration, DefaultCommandValues). */
export const DEFAULT_MAX_REQUEST_BYTES = 128 * 1024 * 1024;
export const DEFAULT_MAX_ACTIVE_CONNECTIONS = 80;
export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;

export const HOST_NOT_AUTHORIZED_BODY = '{"message":"Host not authorized."}';

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
  const timeouts = resolveHttpTimeouts(opts.timeouts);
  const onError = opts.onError ?? ((e: unknown) => console.error('JSON-RPC HTTP:', e));
  if (!(Number.isSafeInteger(maxActiveConnections) && maxActiveConnections > 0)) throw new RangeError('Invalid max active connections configuration.');
  if (!(maxRequestBytes >= 0)) throw new RangeError('maxRequestBytes must be >= 0');
  const settings = { allowlist, cors, maxRequestBytes, auth: opts.auth, onError };
  const rpc = jsonRpcRoute({ ...settings, dispatcher: opts.dispatcher, timeoutMs: opts.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS });
  const other = otherRoutes({ ...settings, health: opts.health ?? { liveness: () => true, readiness: () => true } });

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    // The Host check comes before everything.
    if (!hostAllowed(allowlist, req.headers.host)) {
      const body = HOST_NOT_AUTHORIZED_BODY;
      res.writeHead(403, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    const route = req.method === 'POST' && pathOf(req.url) === '/' ? rpc.handlePost : other;
    void route(req, res).catch(onError);
  };

  // requireHostHeader: false so that a request without Host gets Besu's 403 rather than Node's 400.
  const server: Server = createServer({ requireHostHeader: false, ...httpServerTimerOptions(timeouts) }, listener);
  server.maxConnections = maxActiveConnections;
  applyHttpTimeouts(server, timeouts); // before the fast path, which reads them off the server
  const fast = installFastFrontEnd(server, rpc.fastRoute);
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

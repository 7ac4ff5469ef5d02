/**
 * The GraphQL endpoint (EIP-1767) on its own port, as Besu serves it: --graphql-http-enabled,
 * host 127.0.0.1, port 8547, path /graphql (a trailing slash too, as Vert.x routes it), JSON or
 * application/graphql bodies, GET ?query=; GET or POST on / answers 308 with Location: /graphql
 * (GraphQLHttpService.handleEmptyRequestAndRedirect).
 *
 * Body limit: GraphQLHttpService installs `BodyHandler.create()` without setBodyLimit, so Vert.x
 * web's default applies, 10 MiB (vertx-web 4.5.24 BodyHandler.DEFAULT_BODY_LIMIT), not
 * --rpc-http-max-request-content-length. Over it: 413 "Request Entity Too Large", before any of the
 * body is read when Content-Length says so (BodyHandlerImpl); here the connection then ends and
 * no more of the body is read (closeWithUnreadBody in http.ts). The query itself is limited by the handler (graphql-java's parser
 * limits, ../graphql/handler.ts).
 * Before anything else, on every path and method (GraphQLHttpService.start installs these two
 * handlers on router.route() ahead of the body handler and the routes):
 * - Host check, `--host-allowlist` shared with JSON-RPC (GraphQlOptions.graphQLConfiguration,
 *   checkAllowlistHostHeader: `*` = any; the Host's host part compared case-insensitively; no
 *   Host → refused): 403 `{"message":"Host not authorized."}`, application/json; charset=utf-8.
 * - CORS, Vert.x CorsHandler with the regex of `--graphql-http-cors-origins` (GraphQlOptions;
 *   buildCorsRegexFromConfig: none → "" which only an empty Origin matches, `*` → ".*", else the
 *   entries joined with `|`) and allowed headers `*`, `content-type`. No Origin → on, with
 *   `Vary: origin`; allowed → `Access-Control-Allow-Origin: <origin>` too, and a preflight (OPTIONS
 *   with Access-Control-Request-Method) answers 204 at once; any other Origin → 403 with status
 *   line and body "CORS Rejected - Invalid origin" (CorsHandlerImpl fails the context with 403;
 *   GraphQL registers no 403 error handler, so RoutingContextImplBase.unhandledFailure ends the
 *   response with its status message). GET is no exception: a foreign page's GET is refused too.
 * Beyond Besu: the slow-client timers of timeouts.ts (a request not whole in time gets 408 and
 * the connection closes); Besu's Vert.x server has none. A mutation sent with GET is refused by
 * the handler (../graphql/handler.ts), which Besu does not do.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { BodyTooLarge, closeWithUnreadBody, corsOutcome, corsRegex, HOST_NOT_AUTHORIZED_BODY, hostAllowed, readRequestBody, TOO_LARGE_REASON } from './http.ts';
import { listenOn } from './listen.ts';
import { applyHttpTimeouts, httpServerTimerOptions, resolveHttpTimeouts, type HttpTimeouts } from './timeouts.ts';
import { withRequestSignal } from '../off-loop/request-budget.ts';
import { requestBudget } from './timeouts.ts';

/** Vert.x web's BodyHandler default limit, which Besu's GraphQL service keeps. */
export const DEFAULT_GRAPHQL_MAX_REQUEST_BYTES = 10 * 1024 * 1024;

export interface GraphqlRequest {
  method: 'GET' | 'POST';
  contentType?: string;
  body?: string;
  query?: Record<string, string>;
}

export interface GraphqlResponse {
  status: number;
  body: string;
  contentType: string;
  /** More response headers (e.g. Allow on a 405). */
  headers?: Record<string, string>;
}

export interface GraphqlHttpOptions {
  host: string;
  port: number;
  hostAllowlist: string[];
  /** --graphql-http-cors-origins; default none (any request with an Origin is refused). */
  corsOrigins?: string[];
  handle: (request: GraphqlRequest) => Promise<GraphqlResponse>;
  /** Largest request body accepted (bytes); default 10 MiB. */
  maxRequestBytes?: number;
  /** Slow-client timers (timeouts.ts); 0 turns one off. */
  timeouts?: Partial<HttpTimeouts>;
  /** A request's time once read (Besu's GraphQL TimeoutHandler, 30 s): then 504, and its work is given up. */
  timeoutMs?: number;
  onError?: (error: unknown) => void;
}

export interface GraphqlHttpServer {
  port: number;
  close(): Promise<void>;
}

const PATH = '/graphql';

function send(res: ServerResponse, status: number, body: string, contentType = 'application/json', headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

const CORS_REJECTED_REASON = 'CORS Rejected - Invalid origin';

/** Vert.x's answer to a refused Origin: no Content-Type, the status message as the body. */
function refuseOrigin(res: ServerResponse): void {
  res.statusMessage = CORS_REJECTED_REASON;
  res.writeHead(403, { 'Content-Length': Buffer.byteLength(CORS_REJECTED_REASON) });
  res.end(CORS_REJECTED_REASON);
}

function answerPreflight(res: ServerResponse, headers: Record<string, string>): void {
  res.writeHead(204, { ...headers, 'Content-Length': 0 });
  res.end();
}

/** 413, then the connection ends: whatever is left of the body is never read. */
function refuseTooLarge(req: IncomingMessage, res: ServerResponse): void {
  req.pause();
  const body = TOO_LARGE_REASON;
  res.writeHead(413, TOO_LARGE_REASON, { 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
  closeWithUnreadBody(req, res);
}

export async function startGraphqlHttp(opts: GraphqlHttpOptions): Promise<GraphqlHttpServer> {
  const limit = opts.maxRequestBytes ?? DEFAULT_GRAPHQL_MAX_REQUEST_BYTES;
  const timeouts = resolveHttpTimeouts(opts.timeouts);
  const onError = opts.onError ?? ((e: unknown) => console.error('GraphQL HTTP:', e));
  const cors = corsRegex(opts.corsOrigins ?? []);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  /**
   * The handler's answer, or 'timeout' once the request's time is up (Besu: Vert.x TimeoutHandler,
   * 30 s, 504). Its work is given up then, and when the client leaves first (request-budget.ts).
   */
  const answerInTime = async (request: GraphqlRequest, res: ServerResponse): Promise<GraphqlResponse | 'timeout'> => {
    const budget = requestBudget(timeoutMs);
    const onClose = () => budget.abandon('the client closed its connection');
    res.once('close', onClose);
    const timedOut = new Promise<'timeout'>((resolve) => budget.signal.addEventListener('abort', () => resolve('timeout'), { once: true }));
    try {
      return await Promise.race([withRequestSignal(budget.signal, () => opts.handle(request)), timedOut]);
    } finally {
      budget.done();
      res.off('close', onClose);
    }
  };
  // requireHostHeader: false so that a request without Host gets Besu's 403 rather than Node's 400.
  const server = createServer({ requireHostHeader: false, ...httpServerTimerOptions(timeouts) }, (req, res) => {
    void (async () => {
      if (!hostAllowed(opts.hostAllowlist, req.headers.host)) return send(res, 403, HOST_NOT_AUTHORIZED_BODY, 'application/json; charset=utf-8');
      const corsStep = corsOutcome(cors, req.headers.origin, req.method, req.headers['access-control-request-method']);
      if (corsStep.kind === 'reject') return refuseOrigin(res);
      if (corsStep.kind === 'preflight') return answerPreflight(res, corsStep.headers);
      // Vert.x puts them on the response here, so every later answer carries them.
      for (const [name, value] of Object.entries(corsStep.headers)) res.setHeader(name, value);
      const declared = req.headers['content-length'];
      if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit) return refuseTooLarge(req, res);
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === '/' && (req.method === 'GET' || req.method === 'POST')) {
        res.writeHead(308, { Location: PATH, 'Content-Length': 0 });
        return res.end();
      }
      if (url.pathname !== PATH && url.pathname !== `${PATH}/`) return send(res, 404, JSON.stringify({ message: 'Not found' }));
      if (req.method !== 'GET' && req.method !== 'POST') return send(res, 405, '', 'text/plain');
      let body: string | undefined;
      if (req.method === 'POST') {
        try {
          body = (await readRequestBody(req, limit)).toString('utf8');
        } catch (e) {
          if (e instanceof BodyTooLarge) return refuseTooLarge(req, res);
          return; // the client went away
        }
      }
      const request: GraphqlRequest = { method: req.method, contentType: req.headers['content-type'], body, query: Object.fromEntries(url.searchParams.entries()) };
      const answer = await answerInTime(request, res);
      if (answer === 'timeout') return send(res, 504, 'Gateway Timeout', 'text/plain');
      send(res, answer.status, answer.body, answer.contentType, answer.headers);
    })().catch((err) => {
      onError(err);
      if (!res.headersSent) send(res, 500, JSON.stringify({ errors: [{ message: 'Internal error' }] }));
    });
  });
  applyHttpTimeouts(server, timeouts);
  const port = await listenOn(server, opts.host, opts.port, 'GraphQL HTTP');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

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
 * Beyond Besu: the slow-client timers of timeouts.ts (a request not whole in time gets 408 and
 * the connection closes); Besu's Vert.x server has none.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { BodyTooLarge, closeWithUnreadBody, hostAllowed, readRequestBody, TOO_LARGE_REASON } from './http.ts';
import { listenOn } from './listen.ts';
import { applyHttpTimeouts, httpServerTimerOptions, resolveHttpTimeouts, type HttpTimeouts } from './timeouts.ts';

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
}

export interface GraphqlHttpOptions {
  host: string;
  port: number;
  hostAllowlist: string[];
  handle: (request: GraphqlRequest) => Promise<GraphqlResponse>;
  /** Largest request body accepted (bytes); default 10 MiB. */
  maxRequestBytes?: number;
  /** Slow-client timers (timeouts.ts); 0 turns one off. */
  timeouts?: Partial<HttpTimeouts>;
  onError?: (error: unknown) => void;
}

export interface GraphqlHttpServer {
  port: number;
  close(): Promise<void>;
}

const PATH = '/graphql';

function send(res: ServerResponse, status: number, body: string, contentType = 'application/json'): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
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
  const server = createServer(httpServerTimerOptions(timeouts), (req, res) => {
    void (async () => {
      if (!hostAllowed(opts.hostAllowlist, req.headers.host)) return send(res, 403, JSON.stringify({ message: 'Host not authorized.' }));
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
      const answer = await opts.handle({
        method: req.method,
        contentType: req.headers['content-type'],
        body,
        query: Object.fromEntries(url.searchParams.entries()),
      });
      send(res, answer.status, answer.body, answer.contentType);
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

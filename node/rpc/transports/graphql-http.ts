/**
 * The GraphQL endpoint (EIP-1767) on its own port, as Besu serves it: --graphql-http-enabled,
 * host 127.0.0.1, port 8547, path /graphql (a trailing slash too, as Vert.x routes it), JSON or
 * application/graphql bodies, GET ?query=; GET or POST on / answers 308 with Location: /graphql
 * (GraphQLHttpService.handleEmptyRequestAndRedirect).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { hostAllowed } from './http.ts';
import { listenOn } from './listen.ts';

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
  /** Largest request body accepted (bytes). */
  maxRequestBytes?: number;
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

async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function startGraphqlHttp(opts: GraphqlHttpOptions): Promise<GraphqlHttpServer> {
  const limit = opts.maxRequestBytes ?? 128 * 1024 * 1024;
  const onError = opts.onError ?? ((e: unknown) => console.error('GraphQL HTTP:', e));
  const server = createServer((req, res) => {
    void (async () => {
      if (!hostAllowed(opts.hostAllowlist, req.headers.host)) return send(res, 403, JSON.stringify({ message: 'Host not authorized.' }));
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === '/' && (req.method === 'GET' || req.method === 'POST')) {
        res.writeHead(308, { Location: PATH, 'Content-Length': 0 });
        return res.end();
      }
      if (url.pathname !== PATH && url.pathname !== `${PATH}/`) return send(res, 404, JSON.stringify({ message: 'Not found' }));
      if (req.method !== 'GET' && req.method !== 'POST') return send(res, 405, '', 'text/plain');
      const body = req.method === 'POST' ? await readBody(req, limit) : undefined;
      if (req.method === 'POST' && body === undefined) return send(res, 413, '', 'text/plain');
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

/**
 * The metrics endpoint, as Besu serves it with --metrics-enabled (hyperledger/besu 3fd224e2:
 * metrics/core/.../metrics/prometheus/MetricsHttpService.java, MetricsConfiguration.java; it runs
 * prometheus/client_java v1.5.0's exporter HTTPServer on the JDK's com.sun.net.httpserver):
 * - Every path first passes the host check with `--host-allowlist` (the same list and rule as
 *   JSON-RPC: `*` lets all in; else the Host header's host part, case-insensitively; no Host →
 *   refused). A refusal is 403 with an empty body.
 * - The JDK server picks a handler by longest string prefix of the path (Java 21's ContextList):
 *   a path starting with `/metrics` (any method; the query may hold `name[]=` filters) answers
 *   200 with the metrics in text format 0.0.4 (`Content-Type: text/plain; version=0.0.4;
 *   charset=utf-8`), gzipped when Accept-Encoding lists `gzip`; one starting with `/-/healthy`
 *   answers 200 "Exporter is healthy.\n"; `/` itself a 200 HTML page pointing at /metrics (the
 *   library's page; ours is shorter); any other path 404 with no body (Besu's
 *   RestrictedDefaultHandler).
 * - HEAD gets the headers of GET.
 * Not reproduced: the OpenMetrics and protobuf answers a Prometheus server's Accept header can
 * ask for (every scraper accepts 0.0.4), `?debug=`, and the stack trace in a failed scrape's 500.
 * Bounds (the JDK server has none of its own but its 10-thread pool): at most `maxConnections`
 * sockets (more are closed at once), requests must arrive within `requestTimeoutMs` (client_java
 * sets the JDK's maxReqTime to 60 s), no request body is read, and a request with any other
 * method than GET or HEAD closes its connection after the answer.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { hostAllowed } from '../rpc/transports/http.ts';
import { listenOn } from '../rpc/transports/listen.ts';
import { TEXT_CONTENT_TYPE } from './exposition.ts';

export const METRICS_LISTENER = 'Metrics';
export const DEFAULT_METRICS_MAX_CONNECTIONS = 20;
export const DEFAULT_METRICS_REQUEST_TIMEOUT_MS = 60_000;
export const HEALTHY_BODY = 'Exporter is healthy.\n';

const METRICS_PATH = '/metrics';
const HEALTHY_PATH = '/-/healthy';
const LANDING_PAGE = `<html><head><title>qbft-lab metrics</title></head><body><p>Metrics are at <a href="metrics">${METRICS_PATH}</a>.</p></body></html>\n`;

export interface MetricsHttpOptions {
  host: string;
  port: number;
  hostAllowlist: readonly string[];
  /** The exposition text of the metrics whose names `include` keeps. */
  scrape: (include: (name: string) => boolean) => string;
  maxConnections?: number;
  requestTimeoutMs?: number;
  onError?: (error: unknown) => void;
}

export interface MetricsHttpServer {
  port: number;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: string | Buffer = '', headers: Record<string, string> = {}): void {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.writeHead(status, { ...headers, 'Content-Length': String(bytes.length) });
  res.end(bytes);
}

/** client_java's test: some comma-separated Accept-Encoding entry is exactly `gzip` (any case). */
export function acceptsGzip(acceptEncoding: string | string[] | undefined): boolean {
  const values = acceptEncoding === undefined ? [] : Array.isArray(acceptEncoding) ? acceptEncoding : [acceptEncoding];
  return values.some((v) => v.split(',').some((e) => e.trim().toLowerCase() === 'gzip'));
}

/** The `name[]` query filter: none keeps all; a counter matches with or without `_total`. */
export function nameFilter(search: URLSearchParams): (name: string) => boolean {
  const wanted = new Set(search.getAll('name[]'));
  if (wanted.size === 0) return () => true;
  return (name) => wanted.has(name) || (name.endsWith('_total') && wanted.has(name.slice(0, -'_total'.length)));
}

export async function startMetricsHttp(opts: MetricsHttpOptions): Promise<MetricsHttpServer> {
  const onError = opts.onError ?? ((e: unknown) => console.error('metrics HTTP:', e));
  const requestTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_METRICS_REQUEST_TIMEOUT_MS;
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') res.setHeader('Connection', 'close');
    if (!hostAllowed(opts.hostAllowlist, req.headers.host)) return send(res, 403);
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      return send(res, 404);
    }
    const path = url.pathname;
    if (path.startsWith(METRICS_PATH)) {
      let text: string;
      try {
        text = opts.scrape(nameFilter(url.searchParams));
      } catch (err) {
        onError(err);
        return send(res, 500, 'An exception occurred while scraping metrics\n', { 'Content-Type': 'text/plain; charset=utf-8' });
      }
      if (acceptsGzip(req.headers['accept-encoding']))
        return send(res, 200, gzipSync(Buffer.from(text, 'utf8')), { 'Content-Type': TEXT_CONTENT_TYPE, 'Content-Encoding': 'gzip' });
      return send(res, 200, text, { 'Content-Type': TEXT_CONTENT_TYPE });
    }
    if (path.startsWith(HEALTHY_PATH)) return send(res, 200, HEALTHY_BODY, { 'Content-Type': 'text/plain; charset=utf-8' });
    if (path === '/') return send(res, 200, LANDING_PAGE, { 'Content-Type': 'text/html; charset=utf-8' });
    send(res, 404);
  };
  // requireHostHeader: false so that a request without Host gets the 403 rather than Node's 400.
  const server = createServer(
    {
      requireHostHeader: false,
      requestTimeout: requestTimeoutMs,
      headersTimeout: requestTimeoutMs,
      // Node checks the two timeouts on this period (30 s by default, half of Besu's 60 s).
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(requestTimeoutMs / 4))),
    },
    listener,
  );
  server.maxConnections = opts.maxConnections ?? DEFAULT_METRICS_MAX_CONNECTIONS;
  const port = await listenOn(server, opts.host, opts.port, METRICS_LISTENER);
  let closing: Promise<void> | undefined;
  return {
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

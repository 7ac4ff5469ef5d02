/**
 * JSON-RPC over WebSocket, as Besu's WebSocketService serves it (with the ws library).
 *
 * Besu facts (hyperledger/besu 3fd224e2: ethereum/api/.../jsonrpc/websocket/{WebSocketService,
 * WebSocketMessageHandler,JsonResponseStreamer,WebSocketConfiguration}.java,
 * websocket/subscription/{SubscriptionManager,response/SubscriptionResponse,
 * response/SubscriptionResponseResult}.java; Netty WebSocket08FrameDecoder):
 * - `--rpc-ws-max-frame-size` (default 1 MiB: cli/DefaultCommandValues.DEFAULT_WS_MAX_FRAME_SIZE;
 *   WebSocketService sets it as Vert.x's max frame size and 4 times it as the max message size): a
 *   larger frame makes Netty close the connection with 1009 (MESSAGE_TOO_BIG) and reason "Max frame
 *   length of <n> has been exceeded.". ws refuses it the same way as soon as the frame header
 *   announces the length, before reading the payload. (ws has one limit for a whole message, so
 *   here a message — fragmented or not — is limited to the frame size, not 4 times it.)
 * - `--rpc-ws-max-active-connections` (default 80): connections beyond it are closed at once.
 * - No batch size limit (--rpc-http-max-batch-size is HTTP's: only JsonRpcArrayExecutor checks
 *   it); a batch is bounded by the message size.
 * - The upgrade is refused with 403 when the Host is not in `--host-allowlist`. The only
 *   sub-protocol the server accepts is "undefined" (Vert.x addWebSocketSubProtocol("undefined")).
 * - Plain HTTP requests: Host check (403 `{"message":"Host not authorized."}`), POST /login (auth
 *   hook, or 400 "Authentication not enabled"), anything else 400
 *   "Websocket endpoint can't handle HTTP requests".
 * - Text and binary frames are both requests; each answer is one text message. A connection's
 *   requests are answered in order (Vert.x ordered executeBlocking).
 * - Notifications: `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":<id>,
 *   "result":<result>}}` as a text message to the subscribing connection.
 * - When a connection closes, its subscriptions go (here: `onConnectionClosed(connectionId)`).
 * - POST /login reads its body with Vert.x web's default BodyHandler limit, 10 MiB.
 * Beyond Besu (whose Vert.x server has no idle timeout), against clients that hold connections:
 * the HTTP request before the upgrade has the timers of timeouts.ts (head within 10 s, else 408
 * and close); after it, the server pings every `heartbeatIntervalMs` (30 s) and ends a connection
 * that has not answered the previous ping (a dead peer, or one stalled in the middle of a frame,
 * whose pong would be read as that frame's payload). Requests read ahead are bounded in number and
 * in size (reading pauses beyond).
 */
import { listenOn } from './listen.ts';
import { connectionNotifier, tickBatcher } from './notifier.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket, type RawData } from 'ws';
import { formatErrorType, type Dispatcher, type RpcContext } from '../dispatcher.ts';
import { RequestAbandonedError, withRequestSignal } from '../off-loop/request-budget.ts';
import { requestBudget } from './timeouts.ts';
import { acceptsJson, bearerToken, BodyTooLarge, closeWithUnreadBody, DEFAULT_HOST_ALLOWLIST, HOST_NOT_AUTHORIZED_BODY, hostAllowed, readRequestBody, TOO_LARGE_REASON, type AuthOutcome, type AuthRequest, type PlainResponse } from './http.ts';
import { applyHttpTimeouts, httpServerTimerOptions, resolveHttpTimeouts, type HttpTimeouts } from './timeouts.ts';

export const DEFAULT_WS_MAX_FRAME_SIZE = 1024 * 1024;
export const DEFAULT_WS_MAX_ACTIVE_CONNECTIONS = 80;
export const DEFAULT_WS_HEARTBEAT_INTERVAL_MS = 30_000;
/** Vert.x web's BodyHandler default limit (POST /login). */
const LOGIN_MAX_BODY_BYTES = 10 * 1024 * 1024;
export const WS_HTTP_NOT_SUPPORTED = "Websocket endpoint can't handle HTTP requests";
/** RFC 6455 close code 1009 (message too big). */
export const CLOSE_MESSAGE_TOO_BIG = 1009;

/** Requests read ahead per connection before the socket is paused, in number and in size (frame sizes, counted in UTF-16 units). */
const MAX_QUEUED_REQUESTS = 256;
const MAX_QUEUED_FRAME_SIZES = 4;

export interface WsAuthHook {
  /** Runs once at the upgrade; 'unauthorized' is taken as "no user" (Besu keeps the connection and refuses methods one by one). */
  authenticate(request: AuthRequest): Promise<AuthOutcome> | AuthOutcome;
  login(bodyText: string): Promise<PlainResponse> | PlainResponse;
}

export interface WsRpcOptions {
  host: string;
  port: number;
  dispatcher: Pick<Dispatcher, 'handleText'>;
  /** --rpc-ws-max-frame-size; default 1 MiB. */
  maxFrameSize?: number;
  /** --rpc-ws-max-active-connections; default 80. */
  maxActiveConnections?: number;
  /** --host-allowlist; default ['localhost', '127.0.0.1']. */
  hostAllowlist?: string[];
  /** Called once per connection when it closes (remove its subscriptions). */
  onConnectionClosed?: (connectionId: string) => void;
  /** A connection whose unsent output exceeds this is dropped (a client not reading). Default 256 MiB. */
  maxBufferedBytes?: number;
  /** Ping period; a connection that has not answered the previous ping is ended. Default 30 s; 0: no pings. */
  heartbeatIntervalMs?: number;
  /** Timers for the HTTP request before the upgrade (timeouts.ts); 0 turns one off. */
  timeouts?: Partial<HttpTimeouts>;
  /** A request's time (--Xws-timeout-seconds, 30 s): then its work is given up and it answers TIMEOUT_ERROR. */
  requestTimeoutMs?: number;
  auth?: WsAuthHook;
  onError?: (error: unknown) => void;
}

export interface WsRpcServer {
  port: number;
  host: string;
  /** Open TCP connections, upgraded or not: what --rpc-ws-max-active-connections counts. */
  socketCount(): number;
  /** Open WebSocket connections. */
  connectionCount(): number;
  close(): Promise<void>;
}


function rawDataToString(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

function plainHttp(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}, statusMessage?: string): void {
  if (statusMessage !== undefined) res.statusMessage = statusMessage;
  res.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function rejectUpgrade(socket: Duplex, status: number, reason: string): void {
  if (socket.writable) socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
  socket.destroy();
}

/** What a connection shares with its server. */
interface WsConnectionContext {
  opts: WsRpcOptions;
  onError: (error: unknown) => void;
  open: Set<WebSocket>;
  /** Connections that have answered (or been opened since) the last ping. */
  alive: WeakSet<WebSocket>;
  tooBigReason: string;
  maxBufferedBytes: number;
  maxQueuedChars: number;
  requestTimeoutMs: number;
}

/** Answers one connection's messages in order, each within its time budget, pausing reads while too many wait. */
function serveWsConnection(ws: WebSocket, permissions: string[] | undefined, socket: Duplex, connectionId: string, conn: WsConnectionContext): void {
  const { opts, onError, open, alive, tooBigReason, maxBufferedBytes, maxQueuedChars, requestTimeoutMs } = conn;
  open.add(ws);
  alive.add(ws);
  ws.on('pong', () => alive.add(ws));
  // ws closes an over-limit message with 1009 and no reason; Netty gives one. Add it.
  const close = ws.close.bind(ws);
  ws.close = (code?: number, reason?: string | Buffer) => close(code, reason ?? (code === CLOSE_MESSAGE_TOO_BIG ? tooBigReason : undefined));

  // A tick's messages (a block's notifications, answers) leave in one write.
  const batch = tickBatcher(socket);
  const send = (text: string): void => {
    if (ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount > maxBufferedBytes) {
      ws.terminate();
      return;
    }
    batch();
    ws.send(text);
  };
  const notify = connectionNotifier(send, onError);
  const ctx: RpcContext = { transport: 'ws', connectionId, notify };
  if (permissions !== undefined) ctx.permissions = permissions;

  const queue: string[] = [];
  let queuedChars = 0;
  let working = false;
  const connection = new AbortController();
  let paused = false;
  const work = async (): Promise<void> => {
    if (working) return;
    working = true;
    try {
      while (queue.length > 0 && ws.readyState === WebSocket.OPEN) {
        const text = queue.shift()!;
        queuedChars -= text.length;
        if (paused && queue.length < MAX_QUEUED_REQUESTS / 4 && queuedChars < maxQueuedChars / 4) {
          paused = false;
          ws.resume();
        }
        const budget = requestBudget(requestTimeoutMs);
        try {
          const signal = AbortSignal.any([budget.signal, connection.signal]);
          const { body } = await withRequestSignal(signal, () => opts.dispatcher.handleText(text, ctx));
          if (body !== undefined) send(body);
        } catch (e) {
          onError(e);
          send(formatErrorType(null, 'INTERNAL_ERROR'));
        } finally {
          budget.done();
        }
      }
    } finally {
      working = false;
    }
  };

  ws.on('message', (data: RawData) => {
    const text = rawDataToString(data);
    queue.push(text);
    queuedChars += text.length;
    if (!paused && (queue.length >= MAX_QUEUED_REQUESTS || queuedChars >= maxQueuedChars)) {
      paused = true;
      ws.pause();
    }
    void work();
  });
  ws.on('error', () => {
    // ws has already closed (or will close) the connection; 'close' follows.
  });
  ws.once('close', () => {
    connection.abort(new RequestAbandonedError('the client closed its connection'));
    open.delete(ws);
    queue.length = 0;
    queuedChars = 0;
    try {
      opts.onConnectionClosed?.(connectionId);
    } catch (e) {
      onError(e);
    }
  });
}

/** A plain HTTP request to the WebSocket port: /login when authentication is on, otherwise 400. */
async function answerHttpRequest(req: IncomingMessage, res: ServerResponse, opts: WsRpcOptions, allowlist: string[], onError: (error: unknown) => void): Promise<void> {
  if (!hostAllowed(allowlist, req.headers.host)) {
    plainHttp(res, 403, HOST_NOT_AUTHORIZED_BODY, { 'Content-Type': 'application/json; charset=utf-8' });
    return;
  }
  const path = (req.url ?? '/').split('?')[0];
  if (req.method === 'POST' && path === '/login' && acceptsJson(req.headers['accept'])) {
    if (opts.auth === undefined) {
      req.resume();
      plainHttp(res, 400, '', {}, 'Authentication not enabled');
      return;
    }
    let body: string;
    try {
      body = (await readRequestBody(req, LOGIN_MAX_BODY_BYTES)).toString('utf8');
    } catch (e) {
      if (e instanceof BodyTooLarge) {
        plainHttp(res, 413, TOO_LARGE_REASON, {}, TOO_LARGE_REASON);
        closeWithUnreadBody(req, res);
      }
      return;
    }
    try {
      const r = await opts.auth.login(body);
      plainHttp(res, r.status, r.body ?? '', r.headers ?? {}, r.statusMessage);
    } catch (e) {
      onError(e);
      plainHttp(res, 500, 'Internal Server Error');
    }
    return;
  }
  req.resume();
  plainHttp(res, 400, WS_HTTP_NOT_SUPPORTED);
}

export async function startWsRpc(opts: WsRpcOptions): Promise<WsRpcServer> {
  const maxFrameSize = opts.maxFrameSize ?? DEFAULT_WS_MAX_FRAME_SIZE;
  const maxActiveConnections = opts.maxActiveConnections ?? DEFAULT_WS_MAX_ACTIVE_CONNECTIONS;
  const allowlist = opts.hostAllowlist ?? [...DEFAULT_HOST_ALLOWLIST];
  const maxBufferedBytes = opts.maxBufferedBytes ?? 256 * 1024 * 1024;
  const heartbeatIntervalMs = opts.heartbeatIntervalMs ?? DEFAULT_WS_HEARTBEAT_INTERVAL_MS;
  const timeouts = resolveHttpTimeouts(opts.timeouts);
  const requestTimeoutMs = opts.requestTimeoutMs ?? 30_000;
  const maxQueuedChars = maxFrameSize * MAX_QUEUED_FRAME_SIZES;
  const onError = opts.onError ?? ((e: unknown) => console.error('JSON-RPC WebSocket:', e));
  if (!(Number.isSafeInteger(maxFrameSize) && maxFrameSize > 0)) throw new RangeError('maxFrameSize must be a positive integer');
  if (!(Number.isSafeInteger(maxActiveConnections) && maxActiveConnections > 0)) throw new RangeError('Invalid max active connections configuration.');
  if (!(Number.isSafeInteger(heartbeatIntervalMs) && heartbeatIntervalMs >= 0)) throw new RangeError('heartbeatIntervalMs must be a non-negative integer');
  const tooBigReason = `Max frame length of ${maxFrameSize} has been exceeded.`;

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: maxFrameSize,
    perMessageDeflate: false,
    handleProtocols: (protocols) => (protocols.has('undefined') ? 'undefined' : false),
  });

  let nextConnection = 1;
  const open = new Set<WebSocket>();
  /** Connections that have answered (or been opened since) the last ping. */
  const alive = new WeakSet<WebSocket>();
  const heartbeat =
    heartbeatIntervalMs > 0
      ? setInterval(() => {
          for (const ws of open) {
            if (!alive.has(ws)) {
              ws.terminate();
              continue;
            }
            alive.delete(ws);
            ws.ping();
          }
        }, heartbeatIntervalMs)
      : undefined;
  heartbeat?.unref();

  const conn: WsConnectionContext = { opts, onError, open, alive, tooBigReason, maxBufferedBytes, maxQueuedChars, requestTimeoutMs };
  const onConnection = (ws: WebSocket, permissions: string[] | undefined, socket: Duplex): void =>
    serveWsConnection(ws, permissions, socket, `ws-${nextConnection++}`, conn);

  const server: Server = createServer({ requireHostHeader: false, ...httpServerTimerOptions(timeouts) }, (req: IncomingMessage, res: ServerResponse) =>
    answerHttpRequest(req, res, opts, allowlist, onError),
  );
  server.maxConnections = maxActiveConnections;
  applyHttpTimeouts(server, timeouts);
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (!hostAllowed(allowlist, req.headers.host)) {
      rejectUpgrade(socket, 403, 'Forbidden');
      return;
    }
    const finish = (permissions: string[] | undefined): void => {
      wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, permissions, socket));
    };
    if (opts.auth === undefined) return finish(undefined);
    const authorization = req.headers['authorization'];
    Promise.resolve(opts.auth.authenticate({ authorization, bearerToken: bearerToken(authorization), headers: req.headers })).then(
      (outcome) => finish(outcome === 'unauthorized' ? [] : outcome),
      (e: unknown) => {
        onError(e);
        rejectUpgrade(socket, 500, 'Internal Server Error');
      },
    );
  });

  const port = await listenOn(server, opts.host, opts.port, 'Websocket');

  let closing: Promise<void> | undefined;
  return {
    port,
    host: opts.host,
    connectionCount: () => open.size,
    socketCount: () => sockets.size,
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        clearInterval(heartbeat);
        for (const ws of open) ws.terminate();
        wss.close();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/**
 * A fast HTTP/1.1 front end for the JSON-RPC route (`POST /`), in front of a node:http server.
 *
 * Why: node:http costs about 50 µs of CPU per request here (IncomingMessage, ServerResponse,
 * header objects, two writes' worth of stream machinery) where the socket work itself is about
 * 20 µs; ganache (uWebSockets.js) costs about 23 µs. This front end takes the server's
 * 'connection' event, reads each request off the socket itself and, for the plain keep-alive
 * JSON-RPC request every client library sends, answers with one socket write.
 *
 * What it serves itself: request line exactly `POST / HTTP/1.1`; header lines `name: value` with
 * token names, no obs-fold, no control characters, no repeated name; a decimal Content-Length;
 * no Transfer-Encoding, Expect or Upgrade; Connection absent, `keep-alive` or `close`; the head within
 * node's 16 KiB; and whatever `admit` accepts (the Host allowlist, CORS, Accept and the body
 * limit are checked there, synchronously, before anything is consumed).
 *
 * Everything else (another method, path, version or framing, a refused Host or Origin, a body
 * over the limit, anything malformed) is handed to node:http with the bytes not yet consumed,
 * and the connection stays with node:http from then on: the answer is node:http's, byte for
 * byte as before. Requests on one connection are answered in order (pipelined requests wait);
 * a hand-off waits for the answer in flight.
 *
 * Answers carry the same head as node:http writes for the same response (status line, the
 * route's headers in order, Content-Length, Date, `Connection: keep-alive` and
 * `Keep-Alive: timeout=<keepAliveTimeout>`; Date then `Connection: close` when the client asked
 * to close; `Connection: close` then Date when the route's answer closes).
 * Timers, as node:http's (timeouts.ts sets them): an idle keep-alive connection closes after
 * `server.keepAliveTimeout`; a request not complete in time gets `408 Request Timeout` and the
 * connection closes: its head within `server.headersTimeout` and the whole of it within
 * `server.requestTimeout`, both counted from its first byte (a new connection's from its opening,
 * so a client that connects and sends nothing goes too), so that slow or stalled clients cannot
 * keep connections; a request whose answer takes longer than `timeoutMs` gets the route's timeout
 * answer and the connection closes. One sweep timer per server checks these (period: a tenth of
 * the shortest timer, within 5 ms .. 1 s).
 *
 * Known differences from node:http: when a client half-closes while a pipelined request that has
 * to be handed off still waits behind an answer in flight, that connection is closed instead of
 * handed off (the stream cannot take back bytes after its end).
 */
import { STATUS_CODES, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { checkPeriodMs } from './timeouts.ts';
import { RequestAbandonedError } from '../off-loop/request-budget.ts';

/** node:http's default --max-http-header-size. */
export const MAX_HEAD_BYTES = 16 * 1024;

export interface FastRequest {
  /** Lower-case names, values trimmed (as node:http's `req.headers` for these simple requests). */
  headers: IncomingHttpHeaders;
  contentLength: number;
  /** The client asked `Connection: close`: the connection closes after the answer. */
  close: boolean;
}

export interface FastReply {
  status: number;
  /** Header lines after the admitted ones and before Content-Length, each ending in CRLF. */
  headerLines?: string;
  body: string;
  /** Close the connection after this answer (`Connection: close`). */
  close?: boolean;
}

export interface FastRoute {
  /**
   * Whether the fast path serves this request: undefined hands it to node:http; otherwise the
   * header lines every answer to it starts with (e.g. CORS's `Vary: origin\r\n`), ASCII only.
   * A function of the request's headers alone: verdicts are kept per distinct head, and requests
   * with the same head share one FastRequest (treat it as read-only).
   */
  admit(request: FastRequest): string | undefined;
  /**
   * The answer to an admitted request, synchronous when it can be (it is then written before the
   * next request is read); failures are answers too (a throw or rejection answers 500 and closes).
   */
  serve(request: FastRequest, body: Buffer, signal: AbortSignal): FastReply | Promise<FastReply>;
  /**
   * The answer when `serve` takes longer than `timeoutMs` (sent with Connection: close), given the
   * request's body. `serve`'s signal fires then, and when the client closes the connection first.
   */
  timeoutReply: (body: Buffer) => FastReply;
  timeoutMs: number;
}

export interface FastFrontEnd {
  /** Connections the fast path still holds (not handed to node:http). */
  connectionCount(): number;
  /** Stops the sweep timer (the server's close destroys the sockets). */
  stop(): void;
}

const CRLFCRLF = Buffer.from('\r\n\r\n', 'latin1');
const LFLF = Buffer.from('\n\n', 'latin1');
const LFCRLF = Buffer.from('\n\r\n', 'latin1');
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Control characters node:http refuses in a header value (tab allowed). */
const BAD_VALUE_CHAR = /[\x00-\x08\x0a-\x1f\x7f]/;
const INTERNAL_FAILURE: FastReply = { status: 500, body: 'Internal Server Error', close: true };
const MAX_CACHED_HEADS = 256;
const REQUEST_TIMEOUT_RESPONSE = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

/** Headers whose presence sends the request to node:http. */
const HAND_OFF_HEADERS = new Set(['transfer-encoding', 'expect', 'upgrade', '__proto__']);

let cachedDateSecond = -1;
let cachedDate = '';
/** node:http's Date header value (toUTCString, refreshed once a second). */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== cachedDateSecond) {
    cachedDateSecond = second;
    cachedDate = new Date(now).toUTCString();
  }
  return cachedDate;
}

const statusLines = new Map<number, string>();
function statusLine(status: number): string {
  let line = statusLines.get(status);
  if (line === undefined) {
    line = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'unknown'}\r\n`;
    statusLines.set(status, line);
  }
  return line;
}

/**
 * Parses a request head (latin1 text without the final CRLFCRLF). Undefined: not a request the
 * fast path serves.
 */
export function parseSimpleHead(head: string): FastRequest | undefined {
  let lineEnd = head.indexOf('\r\n');
  if ((lineEnd < 0 ? head : head.slice(0, lineEnd)) !== 'POST / HTTP/1.1') return undefined;
  const headers: IncomingHttpHeaders = {};
  let contentLength = -1;
  let close = false;
  while (lineEnd >= 0) {
    const start = lineEnd + 2;
    lineEnd = head.indexOf('\r\n', start);
    const line = lineEnd < 0 ? head.slice(start) : head.slice(start, lineEnd);
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    const rawName = line.slice(0, colon);
    if (!TOKEN.test(rawName)) return undefined;
    const name = rawName.toLowerCase();
    if (HAND_OFF_HEADERS.has(name) || headers[name] !== undefined) return undefined;
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
    if (BAD_VALUE_CHAR.test(value)) return undefined;
    if (name === 'content-length') {
      if (!/^\d{1,15}$/.test(value)) return undefined;
      contentLength = Number(value);
    } else if (name === 'connection') {
      const v = value.toLowerCase();
      if (v === 'close') close = true;
      else if (v !== 'keep-alive') return undefined;
    }
    headers[name] = value;
  }
  if (contentLength < 0) return undefined;
  return { headers, contentLength, close };
}

/**
 * Puts the fast path in front of `server` (a node:http server, before it listens): takes over its
 * 'connection' event and hands to node:http's own listener whatever the fast path does not serve.
 */
export function installFastFrontEnd(server: Server, route: FastRoute): FastFrontEnd {
  const nodeListeners = server.listeners('connection') as Array<(socket: Socket) => void>;
  if (nodeListeners.length !== 1) throw new Error('installFastFrontEnd: expected node:http\'s one connection listener');
  const nodeConnection = nodeListeners[0]!;
  server.removeListener('connection', nodeConnection);

  const open = new Set<Connection>();

  /** Parsed and admitted heads (undefined: node:http's), by head text. */
  const verdicts = new Map<string, { request: FastRequest; prefix: string } | undefined>();
  const admitted = (head: string): { request: FastRequest; prefix: string } | undefined => {
    let verdict = verdicts.get(head);
    if (verdict === undefined && !verdicts.has(head)) {
      const request = parseSimpleHead(head);
      const prefix = request === undefined ? undefined : route.admit(request);
      verdict = request === undefined || prefix === undefined ? undefined : { request, prefix };
      if (verdicts.size >= MAX_CACHED_HEADS) verdicts.clear();
      verdicts.set(head, verdict);
    }
    return verdict;
  };

  class Connection {
    private chunks: Buffer[] = [];
    private buffered = 0;
    /** The request whose head is parsed and whose body is still arriving. */
    private pending: { request: FastRequest; prefix: string; bodyStart: number; end: number } | undefined;
    private busy = false;
    private paused = false;
    private ended = false;
    private done = false;
    private waitingDrain = false;
    /** Date.now() values the sweep compares with its timers. */
    private idleSince = Date.now();
    /** When the request now arriving began (0: none); a new connection waits for its first head. */
    private partialSince = Date.now();
    private requestStart = 0;
    /** The admitted prefix and body of the request in flight (for its timeout answer), and its signal's controller. */
    private servingPrefix = '';
    private servingBody: Buffer | undefined;
    private serving: AbortController | undefined;

    constructor(readonly socket: Socket) {
      socket.on('data', this.onData);
      socket.on('end', this.onEnd);
      socket.on('error', this.onError);
      socket.once('close', this.onClose);
    }

    private readonly onData = (chunk: Buffer): void => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      if (this.busy || this.waitingDrain) {
        // Pipelined bytes wait in the stream (and so does its end) until the answer is out.
        if (!this.paused) {
          this.paused = true;
          this.socket.pause();
        }
        return;
      }
      this.pump();
    };

    private readonly onEnd = (): void => {
      this.ended = true;
      // A client that ends its side while its request runs has left (node:http aborts the request
      // then too, httpAllowHalfOpen being false): its work stops, and the answer, if any, is written.
      if (this.busy) this.abandon('the client closed its connection');
      else if (!this.waitingDrain) this.finishOrEnd();
    };

    private readonly onError = (): void => {
      // 'close' follows; nothing to answer.
    };

    private readonly onClose = (): void => {
      this.done = true;
      open.delete(this);
      this.abandon('the client closed its connection');
    };

    /** The request in flight is not waited for any more: its work may stop. */
    private abandon(reason: string): void {
      const serving = this.serving;
      this.serving = this.servingBody = undefined;
      if (serving && !serving.signal.aborted) serving.abort(new RequestAbandonedError(reason));
    }

    /** One contiguous buffer of everything unconsumed. */
    private flatten(): Buffer {
      if (this.chunks.length !== 1) {
        const all = Buffer.concat(this.chunks, this.buffered);
        this.chunks = [all];
      }
      return this.chunks[0]!;
    }

    private pump(): void {
      while (!this.busy && !this.done && !this.waitingDrain && this.buffered > 0) {
        const pending = this.pending;
        if (pending !== undefined) {
          if (this.buffered < pending.end) return this.markPartial();
          const buf = this.flatten();
          const body = buf.subarray(pending.bodyStart, pending.end);
          if (pending.end < buf.length) {
            this.chunks = [buf.subarray(pending.end)];
            this.buffered = buf.length - pending.end;
          } else {
            this.chunks = [];
            this.buffered = 0;
          }
          this.pending = undefined;
          this.partialSince = 0;
          if (!this.serve(pending.request, pending.prefix, body)) return;
          continue; // answered at once: on to the next request
        }
        const buf = this.flatten();
        const headEnd = buf.indexOf(CRLFCRLF);
        if (headEnd < 0) {
          // Over node's head limit, or lines ending in a bare LF: node:http's to answer.
          if (buf.length > MAX_HEAD_BYTES || buf.indexOf(LFLF) >= 0 || buf.indexOf(LFCRLF) >= 0) return this.handOff();
          return this.markPartial();
        }
        if (headEnd > MAX_HEAD_BYTES) return this.handOff();
        const verdict = admitted(buf.toString('latin1', 0, headEnd));
        if (verdict === undefined) return this.handOff();
        const bodyStart = headEnd + 4;
        this.pending = { request: verdict.request, prefix: verdict.prefix, bodyStart, end: bodyStart + verdict.request.contentLength };
      }
      if (this.buffered === 0 && this.ended && !this.busy && !this.waitingDrain) this.finishOrEnd();
    }

    private markPartial(): void {
      if (this.partialSince === 0) this.partialSince = Date.now();
      if (this.ended) this.finishOrEnd();
    }

    /** The client has sent its last byte and is owed nothing more (an incomplete request is dropped). */
    private finishOrEnd(): void {
      if (this.done) return;
      this.done = true;
      open.delete(this);
      this.socket.end();
    }

    /** Serves one request; true when it was answered at once and the connection can go on. */
    private serve(request: FastRequest, prefix: string, body: Buffer): boolean {
      let reply: FastReply | Promise<FastReply>;
      const serving = new AbortController();
      try {
        reply = route.serve(request, body, serving.signal);
      } catch {
        reply = INTERNAL_FAILURE;
      }
      const close = request.close;
      if (!(reply instanceof Promise)) {
        this.idleSince = Date.now();
        return this.write(prefix, reply, close);
      }
      this.busy = true;
      this.requestStart = Date.now();
      this.servingPrefix = prefix;
      this.servingBody = body;
      this.serving = serving;
      reply.then(
        (r) => this.answer(prefix, r, close),
        () => this.answer(prefix, INTERNAL_FAILURE, close),
      );
      return false;
    }

    private answer(prefix: string, reply: FastReply, clientClose: boolean): void {
      if (this.done || !this.busy) return; // closed meanwhile, or already answered by the timeout
      this.busy = false;
      this.serving = this.servingBody = undefined;
      this.idleSince = Date.now();
      if (!this.write(prefix, reply, clientClose)) return;
      this.resume();
    }

    /** Writes an answer; false when the connection is finished (closing, or waiting for 'drain'). */
    write(prefix: string, reply: FastReply, clientClose = false): boolean {
      const socket = this.socket;
      if (socket.destroyed || !socket.writable) {
        this.done = true;
        open.delete(this);
        return false;
      }
      const length = Buffer.byteLength(reply.body);
      const tail = reply.close
        ? `Connection: close\r\nDate: ${httpDate()}\r\n\r\n`
        : clientClose
          ? `Date: ${httpDate()}\r\nConnection: close\r\n\r\n`
          : `Date: ${httpDate()}\r\nConnection: keep-alive\r\n${keepAliveHeader()}\r\n`;
      const flushed = socket.write(`${statusLine(reply.status)}${prefix}${reply.headerLines ?? ''}Content-Length: ${length}\r\n${tail}${reply.body}`);
      if (reply.close || clientClose) {
        this.done = true;
        open.delete(this);
        socket.destroySoon();
        return false;
      }
      if (!flushed) {
        this.waitingDrain = true;
        socket.once('drain', () => {
          this.waitingDrain = false;
          this.resume();
        });
        return false;
      }
      return true;
    }

    private resume(): void {
      this.pump();
      if (this.paused && !this.done && this.open()) {
        this.paused = false;
        this.socket.resume();
      }
    }

    private open(): boolean {
      return open.has(this);
    }

    /** node:http takes the connection with the bytes not yet consumed. */
    private handOff(): void {
      const socket = this.socket;
      open.delete(this);
      this.done = true;
      socket.off('data', this.onData);
      socket.off('end', this.onEnd);
      socket.off('error', this.onError);
      socket.off('close', this.onClose);
      if (this.ended) {
        // The stream has ended: it cannot take the bytes back (see the header).
        socket.destroy();
        return;
      }
      const rest = this.buffered > 0 ? this.flatten() : undefined;
      this.chunks = [];
      this.buffered = 0;
      // Paused, the stream keeps the bytes put back until node:http's listener is on; then flowing
      // again, they reach node:http's parser before anything read later.
      socket.pause();
      if (rest !== undefined) socket.unshift(rest);
      nodeConnection.call(server, socket);
      socket.resume();
    }

    /** Timers (see the header); now from Date.now(). */
    sweep(now: number): void {
      if (this.done) return;
      if (this.busy) {
        if (now - this.requestStart >= route.timeoutMs) {
          this.busy = false;
          const reply = route.timeoutReply(this.servingBody ?? Buffer.alloc(0));
          this.abandon('Timeout expired');
          this.write(this.servingPrefix, { ...reply, close: true });
        }
        return;
      }
      if (this.partialSince !== 0) {
        const limit = this.pending === undefined ? server.headersTimeout : server.requestTimeout;
        if (limit > 0 && now - this.partialSince >= limit) {
          this.done = true;
          open.delete(this);
          if (this.socket.writable) this.socket.write(REQUEST_TIMEOUT_RESPONSE);
          this.socket.destroySoon();
        }
        return;
      }
      if (this.buffered === 0 && !this.waitingDrain && server.keepAliveTimeout > 0 && now - this.idleSince >= server.keepAliveTimeout) {
        this.done = true;
        open.delete(this);
        this.socket.destroy();
      }
    }
  }

  let keepAliveMs = -1;
  let keepAliveLine = '';
  /** node:http's `Keep-Alive: timeout=N` line (none when the keep-alive timeout is 0). */
  const keepAliveHeader = (): string => {
    if (server.keepAliveTimeout !== keepAliveMs) {
      keepAliveMs = server.keepAliveTimeout;
      keepAliveLine = keepAliveMs > 0 ? `Keep-Alive: timeout=${Math.floor(keepAliveMs / 1000)}\r\n` : '';
    }
    return keepAliveLine;
  };

  server.on('connection', (socket: Socket) => {
    open.add(new Connection(socket));
  });

  const period = checkPeriodMs(route.timeoutMs, server.keepAliveTimeout, server.headersTimeout, server.requestTimeout);
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const c of open) c.sweep(now);
  }, period);
  sweeper.unref();

  return {
    connectionCount: () => open.size,
    stop: () => clearInterval(sweeper),
  };
}

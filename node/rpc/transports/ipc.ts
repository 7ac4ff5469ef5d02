/**
 * JSON-RPC over IPC: a Unix domain socket carrying a stream of JSON values.
 *
 * Besu facts (hyperledger/besu 3fd224e2: ethereum/api/.../jsonrpc/ipc/JsonRpcIpcService.java,
 * handlers/JsonRpcParserHandler.ipcHandler): every response and every subscription notification
 * is written followed by '\n'; a parse failure answers
 * `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n`; top-level
 * scalars are skipped; stop() deletes the socket file; each connection has its own id and its
 * subscriptions go when it closes. Besu parses each received buffer on its own (a request split
 * across two reads fails there); here the stream is framed incrementally instead, so values may
 * be split across chunks or several may share one.
 *
 * Framing (JsonStreamFramer), on bytes (safe for UTF-8: no ASCII byte occurs inside a multi-byte
 * character): between values whitespace is skipped; '{' or '[' starts a value that ends when its
 * brackets balance (strings and escapes tracked); '"' starts a top-level string; anything else
 * starts a bare token (number, literal or garbage) that ends at whitespace, '{', '[' or '"'. Each
 * complete value's text goes to the dispatcher, which answers -32700 for malformed JSON and
 * nothing for scalars (Besu's IPC rules). A value longer than `maxRequestBytes` is answered -32700
 * at once and skipped to its end without being kept. A connection's values are answered in order;
 * reading pauses while too many wait (by count, or by size: `maxRequestBytes` in all).
 *
 * Limits here, not in Besu (which keeps nothing between reads and has no IPC size option):
 * `maxRequestBytes` defaults to 128 MiB, the HTTP body limit's default
 * (--rpc-http-max-request-content-length); a value still incomplete `partialRequestTimeoutMs`
 * (30 s) after its first byte ends the connection with a -32700, so that a client that sends half
 * a value and stops does not hold its buffer forever. IPC has no batch size limit (Besu checks
 * --rpc-http-max-batch-size on HTTP only).
 */
import { connectionNotifier, tickBatcher } from './notifier.ts';
import { checkPeriodMs } from './timeouts.ts';
import { lstat, unlink } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { formatErrorType, type Dispatcher, type RpcContext } from '../dispatcher.ts';
import { ListenError } from './listen.ts';

export const DEFAULT_IPC_MAX_REQUEST_BYTES = 128 * 1024 * 1024;
export const DEFAULT_IPC_PARTIAL_REQUEST_TIMEOUT_MS = 30_000;
/** `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` */
export const IPC_PARSE_ERROR = formatErrorType(null, 'PARSE_ERROR');
const INTERNAL_ERROR = formatErrorType(null, 'INTERNAL_ERROR');
const MAX_QUEUED_REQUESTS = 256;

export interface IpcRpcOptions {
  /** The socket path (Besu: --Xrpc-ipc-path, default <data-path>/besu.ipc). */
  path: string;
  dispatcher: Pick<Dispatcher, 'handleText'>;
  onConnectionClosed?: (connectionId: string) => void;
  /** Longest JSON value accepted; default 128 MiB. */
  maxRequestBytes?: number;
  /** A value still incomplete this long after its first byte ends the connection; default 30 s; 0: never. */
  partialRequestTimeoutMs?: number;
  onError?: (error: unknown) => void;
}

export interface IpcRpcServer {
  path: string;
  connectionCount(): number;
  /** Closes every connection, stops listening and deletes the socket file. */
  close(): Promise<void>;
}

export type JsonFrame = { kind: 'value'; text: string } | { kind: 'too-large' };

const IS_WS = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) IS_WS[c] = 1;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

type Mode = 'idle' | 'nested' | 'string' | 'bare';

/** Splits a byte stream into top-level JSON values (see the file comment). */
export class JsonStreamFramer {
  private readonly maxBytes: number;
  private mode: Mode = 'idle';
  private depth = 0;
  private inString = false;
  private escape = false;
  /** Bytes of the value in progress from earlier chunks (copied). */
  private parts: Buffer[] = [];
  private partsBytes = 0;
  /** The value in progress went over the limit: scan to its end without keeping it. */
  private skipping = false;
  /** Values begun so far (a change tells that the pending value is a new one). */
  private begun = 0;

  constructor(maxBytes = DEFAULT_IPC_MAX_REQUEST_BYTES) {
    this.maxBytes = maxBytes;
  }

  /** True while a value is incomplete. */
  get pending(): boolean {
    return this.mode !== 'idle';
  }

  /** How many values have begun (complete or not). */
  get valuesBegun(): number {
    return this.begun;
  }

  push(chunk: Buffer): JsonFrame[] {
    const out: JsonFrame[] = [];
    let start = this.mode === 'idle' ? -1 : 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      switch (this.mode) {
        case 'idle':
          if (IS_WS[c] === 1) continue;
          start = i;
          this.begun++;
          this.inString = false;
          this.escape = false;
          if (c === LBRACE || c === LBRACKET) {
            this.mode = 'nested';
            this.depth = 1;
          } else if (c === QUOTE) {
            this.mode = 'string';
          } else {
            this.mode = 'bare';
          }
          continue;
        case 'bare':
          if (IS_WS[c] === 1 || c === LBRACE || c === LBRACKET || c === QUOTE) {
            this.complete(chunk, start, i, out);
            start = -1;
            i--; // the delimiter starts the next value (or is whitespace)
          }
          continue;
        case 'string':
          if (this.escape) this.escape = false;
          else if (c === BACKSLASH) this.escape = true;
          else if (c === QUOTE) {
            this.complete(chunk, start, i + 1, out);
            start = -1;
          }
          continue;
        case 'nested':
          if (this.inString) {
            if (this.escape) this.escape = false;
            else if (c === BACKSLASH) this.escape = true;
            else if (c === QUOTE) this.inString = false;
          } else if (c === QUOTE) this.inString = true;
          else if (c === LBRACE || c === LBRACKET) this.depth++;
          else if (c === RBRACE || c === RBRACKET) {
            if (--this.depth === 0) {
              this.complete(chunk, start, i + 1, out);
              start = -1;
            }
          }
          continue;
      }
    }
    if (this.mode !== 'idle' && !this.skipping && start >= 0) {
      const tail = chunk.subarray(start);
      if (this.partsBytes + tail.length > this.maxBytes) {
        out.push({ kind: 'too-large' });
        this.parts = [];
        this.partsBytes = 0;
        this.skipping = true;
      } else {
        this.parts.push(Buffer.from(tail)); // copy: the socket may reuse its buffer
        this.partsBytes += tail.length;
      }
    }
    return out;
  }

  /** The end of the stream: a pending bare token (e.g. a number) is complete; anything else is dropped. */
  end(): JsonFrame[] {
    const out: JsonFrame[] = [];
    if (this.mode === 'bare' && !this.skipping) out.push({ kind: 'value', text: Buffer.concat(this.parts, this.partsBytes).toString('utf8') });
    this.reset();
    return out;
  }

  reset(): void {
    this.mode = 'idle';
    this.depth = 0;
    this.inString = false;
    this.escape = false;
    this.parts = [];
    this.partsBytes = 0;
    this.skipping = false;
  }

  private complete(chunk: Buffer, start: number, endExclusive: number, out: JsonFrame[]): void {
    if (!this.skipping) {
      const size = this.partsBytes + (endExclusive - start);
      if (size > this.maxBytes) out.push({ kind: 'too-large' });
      else {
        this.parts.push(chunk.subarray(start, endExclusive));
        out.push({ kind: 'value', text: Buffer.concat(this.parts, size).toString('utf8') });
      }
    }
    this.mode = 'idle';
    this.depth = 0;
    this.parts = [];
    this.partsBytes = 0;
    this.skipping = false;
  }
}

/** Removes a socket file left by a dead process; refuses when a server answers on it or the path is not a socket. */
async function removeStaleSocket(path: string): Promise<void> {
  let st;
  try {
    st = await lstat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  if (!st.isSocket()) throw new Error(`IPC path ${path} exists and is not a socket`);
  const live = await new Promise<boolean>((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (live) throw new Error(`IPC path ${path} is in use by a running server`);
  await unlink(path);
}

/** What a connection shares with its server. */
interface IpcConnectionContext {
  opts: IpcRpcOptions;
  onError: (error: unknown) => void;
  maxRequestBytes: number;
  sockets: Set<Socket>;
  /** Date.now() when each connection's incomplete value began (connections with one only). */
  partialSince: Map<Socket, number>;
}

/** Frames one connection's stream into values and answers them in order, pausing reads while too many wait. */
function serveIpcConnection(socket: Socket, connectionId: string, conn: IpcConnectionContext): void {
  const { opts, sockets, partialSince, maxRequestBytes, onError } = conn;
  sockets.add(socket);
  let closed = false;
  // A tick's messages (a block's notifications, answers) leave in one write.
  const batch = tickBatcher(socket);
  const write = (line: string): void => {
    if (closed || !socket.writable) return;
    batch();
    socket.write(line + '\n');
  };
  const notify = connectionNotifier(write, onError);
  const ctx: RpcContext = { transport: 'ipc', connectionId, notify };
  const framer = new JsonStreamFramer(maxRequestBytes);
  let valuesBegun = 0;
  const queue: JsonFrame[] = [];
  let queuedChars = 0;
  let working = false;
  let paused = false;
  /** The client half-closed: answer what it sent, then close our side. */
  let clientEnded = false;

  const work = async (): Promise<void> => {
    if (working) return;
    working = true;
    try {
      while (queue.length > 0 && !closed) {
        const frame = queue.shift()!;
        if (frame.kind === 'value') queuedChars -= frame.text.length;
        if (paused && queue.length < MAX_QUEUED_REQUESTS / 4 && queuedChars < maxRequestBytes / 4) {
          paused = false;
          socket.resume();
        }
        if (frame.kind !== 'value') {
          write(IPC_PARSE_ERROR);
          continue;
        }
        try {
          const { body } = await opts.dispatcher.handleText(frame.text, ctx);
          if (body !== undefined) write(body);
        } catch (e) {
          onError(e);
          write(INTERNAL_ERROR);
        }
      }
    } finally {
      working = false;
    }
    if (clientEnded && queue.length === 0 && !closed) socket.end();
  };

  socket.on('data', (chunk: Buffer) => {
    const frames = framer.push(chunk);
    if (!framer.pending) partialSince.delete(socket);
    else if (framer.valuesBegun !== valuesBegun) partialSince.set(socket, Date.now()); // a new incomplete value
    valuesBegun = framer.valuesBegun;
    if (frames.length === 0) return;
    for (const frame of frames) {
      queue.push(frame);
      if (frame.kind === 'value') queuedChars += frame.text.length;
    }
    if (!paused && (queue.length >= MAX_QUEUED_REQUESTS || queuedChars >= maxRequestBytes)) {
      paused = true;
      socket.pause();
    }
    void work();
  });
  socket.on('error', () => {
    // 'close' follows.
  });
  socket.once('end', () => {
    clientEnded = true;
    partialSince.delete(socket);
    queue.push(...framer.end());
    void work();
  });
  socket.once('close', () => {
    closed = true;
    queue.length = 0;
    queuedChars = 0;
    sockets.delete(socket);
    partialSince.delete(socket);
    try {
      opts.onConnectionClosed?.(connectionId);
    } catch (e) {
      onError(e);
    }
  });
}

export async function startIpcRpc(opts: IpcRpcOptions): Promise<IpcRpcServer> {
  const maxRequestBytes = opts.maxRequestBytes ?? DEFAULT_IPC_MAX_REQUEST_BYTES;
  const partialRequestTimeoutMs = opts.partialRequestTimeoutMs ?? DEFAULT_IPC_PARTIAL_REQUEST_TIMEOUT_MS;
  const onError = opts.onError ?? ((e: unknown) => console.error('JSON-RPC IPC:', e));
  if (!(Number.isSafeInteger(partialRequestTimeoutMs) && partialRequestTimeoutMs >= 0)) throw new RangeError('partialRequestTimeoutMs must be a non-negative integer');
  await removeStaleSocket(opts.path);

  let nextConnection = 1;
  const sockets = new Set<Socket>();
  /** Date.now() when each connection's incomplete value began (connections with one only). */
  const partialSince = new Map<Socket, number>();
  const sweeper =
    partialRequestTimeoutMs > 0
      ? setInterval(() => {
          const now = Date.now();
          for (const [socket, since] of partialSince) {
            if (now - since < partialRequestTimeoutMs) continue;
            partialSince.delete(socket);
            // The answer may not get out if the client does not read; the connection goes either way.
            if (socket.writable) socket.write(IPC_PARSE_ERROR + '\n');
            socket.destroySoon();
            setTimeout(() => socket.destroy(), 1000).unref();
          }
        }, checkPeriodMs(partialRequestTimeoutMs))
      : undefined;
  sweeper?.unref();

  const conn: IpcConnectionContext = { opts, onError, maxRequestBytes, sockets, partialSince };
  const onConnection = (socket: Socket): void => serveIpcConnection(socket, `ipc-${nextConnection++}`, conn);

  // allowHalfOpen: a client may send its requests and half-close (echo … | nc -U path) and still
  // read the answers; the connection is ended once they are written.
  const server: Server = createServer({ allowHalfOpen: true }, onConnection);
  await new Promise<void>((resolve, reject) => {
    const onListenError = (e: Error): void => reject(new ListenError('IPC', `Unable to open IPC endpoint ${opts.path}: ${e.message}`));
    server.once('error', onListenError);
    server.listen(opts.path, () => {
      server.off('error', onListenError);
      resolve();
    });
  });

  let closing: Promise<void> | undefined;
  return {
    path: opts.path,
    connectionCount: () => sockets.size,
    close(): Promise<void> {
      closing ??= (async () => {
        clearInterval(sweeper);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          for (const s of sockets) s.destroy();
        });
        // net.Server unlinks its socket file on close; make sure, as Besu's stop() does.
        await unlink(opts.path).catch(() => undefined);
      })();
      return closing;
    },
  };
}

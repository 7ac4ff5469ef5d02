/**
 * Answers on node:http's response with exactly the headers given (node:http adds Date and the
 * connection headers; nothing else), Besu's refusals, and the request body under a limit.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface RawReply {
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
export function writeRaw(req: IncomingMessage, res: ServerResponse, r: RawReply, extraHeaders?: Record<string, string>): void {
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

export const CORS_REJECTED: RawReply = { status: 403, statusMessage: 'CORS Rejected - Invalid origin', body: 'Exception thrown handling RPC' };
/** Netty's reason phrase for 413 (HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE), also the body. */
export const TOO_LARGE_REASON = 'Request Entity Too Large';
export const TOO_LARGE: RawReply = { status: 413, statusMessage: TOO_LARGE_REASON, body: TOO_LARGE_REASON, unreadBody: true };

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

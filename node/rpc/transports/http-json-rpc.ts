/**
 * The JSON-RPC route, `POST /`, of the HTTP endpoint (http.ts): after CORS, the body limit, the
 * Accept header and authentication, the body goes to the dispatcher, whose answer goes out with
 * its HTTP status (Besu's JsonRpcParserHandler, JsonRpcExecutorHandler, TimeoutHandler). Served two
 * ways with the same answers: on node:http's request/response (`handlePost`), and by the fast
 * front end on the raw head (`fastRoute`, for http1-fast.ts), which hands to node:http whatever it
 * does not admit.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatErrorType, type DispatchResult, type Dispatcher, type RpcContext } from '../dispatcher.ts';
import { RequestAbandonedError, withRequestSignal } from '../off-loop/request-budget.ts';
import type { FastReply, FastRoute } from './http1-fast.ts';
import { BodyTooLarge, CORS_REJECTED, readRequestBody, TOO_LARGE, writeRaw } from './http-reply.ts';
import { acceptsJson, bearerToken, corsOutcome, declaredTooLarge, hostAllowed } from './http-rules.ts';
import type { AuthOutcome, HttpAuthHook } from './http.ts';

/** `{"jsonrpc":"2.0","id":null,"error":{"code":-40100,"message":"Unauthorized"}}` */
export const UNAUTHORIZED_BODY = formatErrorType(null, 'UNAUTHORIZED');
const INTERNAL_ERROR_BODY = formatErrorType(null, 'INTERNAL_ERROR');
const JSON_HEADER_LINE = 'Content-Type: application/json\r\n';

/** What the route needs of the endpoint's settings. */
export interface JsonRpcRouteSettings {
  /** `dispatchText`, when there, answers at once what needs no waiting (Dispatcher has it). */
  dispatcher: Pick<Dispatcher, 'handleText'> & Partial<Pick<Dispatcher, 'dispatchText'>>;
  allowlist: readonly string[];
  cors: RegExp;
  maxRequestBytes: number;
  timeoutMs: number;
  auth?: HttpAuthHook;
  onError: (error: unknown) => void;
}

export interface JsonRpcRoute {
  /** POST / as node:http hands it over, after the Host check. */
  handlePost(req: IncomingMessage, res: ServerResponse): Promise<void>;
  fastRoute: FastRoute;
}

/**
 * Besu's answer to a request that overran its time. A single request: TimeoutHandler's 504 (it
 * times requests whose body is one JSON object). A batch: TimeoutHandler has no timer for it, so
 * JsonRpcExecutorHandler's answers, 408 with TIMEOUT_ERROR (AbstractJsonRpcExecutor.statusCodeFromError).
 */
function timeoutReply(text: string): { status: number; headers?: Record<string, string>; body: string } {
  if (text.trimStart().startsWith('[')) return { status: 408, headers: { 'Content-Type': 'application/json' }, body: formatErrorType(null, 'TIMEOUT_ERROR') };
  return { status: 504, body: 'Gateway Timeout' };
}

/** Verdicts kept per distinct header value (at most 256 of each, then forgotten). */
function verdictCache<K, V>(): (key: K, decide: (key: K) => V) => V {
  const map = new Map<K, V>();
  return (key, decide) => {
    if (map.has(key)) return map.get(key)!;
    if (map.size >= 256) map.clear();
    const value = decide(key);
    map.set(key, value);
    return value;
  };
}

export function jsonRpcRoute(s: JsonRpcRouteSettings): JsonRpcRoute {
  /** Besu's authentication step: the caller's permissions, or 'unauthorized'. */
  const authenticate = async (headers: IncomingMessage['headers']): Promise<AuthOutcome> => {
    const authorization = headers['authorization'];
    try {
      return await s.auth!.authenticate({ authorization, bearerToken: bearerToken(authorization), headers });
    } catch (e) {
      s.onError(e);
      return 'unauthorized';
    }
  };

  /** The dispatcher's answer to a request body (a throwing dispatcher answers -32603). */
  const dispatch = async (text: string, permissions: string[] | undefined, signal: AbortSignal): Promise<{ status: number; body: string }> => {
    const ctx: RpcContext = { transport: 'http' };
    if (permissions !== undefined) ctx.permissions = permissions;
    try {
      const result = await withRequestSignal(signal, () => s.dispatcher.handleText(text, ctx));
      return { status: result.httpStatus, body: result.body ?? '' };
    } catch (e) {
      s.onError(e);
      return { status: 200, body: INTERNAL_ERROR_BODY };
    }
  };

  /** The answer to a body, or the timeout's when the dispatcher takes longer than timeoutMs; work is given up then, and when the client leaves. */
  const answerWithin = async (res: ServerResponse, text: string, permissions: string[] | undefined) => {
    const serving = new AbortController();
    const onClose = () => serving.abort(new RequestAbandonedError('the client closed its connection'));
    res.once('close', onClose);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), s.timeoutMs);
    });
    try {
      const result = await Promise.race([dispatch(text, permissions, serving.signal), timedOut]);
      if (result !== 'timeout') return { status: result.status, headers: { 'Content-Type': 'application/json' }, body: result.body };
      serving.abort(new RequestAbandonedError('Timeout expired'));
      return { ...timeoutReply(text), closeConnection: true };
    } finally {
      clearTimeout(timer);
      res.off('close', onClose);
    }
  };

  /**
   * What the fast front end does not serve itself (a query string, HTTP/1.0, chunked bodies, ...),
   * after the same Host, CORS and body-limit steps as every route.
   */
  const handlePost = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const corsStep = corsOutcome(s.cors, req.headers['origin'], req.method, req.headers['access-control-request-method']);
    if (corsStep.kind === 'reject') return writeRaw(req, res, CORS_REJECTED);
    const extra = corsStep.headers;
    if (declaredTooLarge(req, s.maxRequestBytes)) return writeRaw(req, res, TOO_LARGE, extra);
    if (!acceptsJson(req.headers['accept'])) return writeRaw(req, res, { status: 406 }, extra);
    let permissions: string[] | undefined;
    if (s.auth !== undefined) {
      const outcome = await authenticate(req.headers);
      if (outcome === 'unauthorized') return writeRaw(req, res, { status: 401, body: UNAUTHORIZED_BODY }, extra);
      permissions = outcome;
    }
    let text: string;
    try {
      text = (await readRequestBody(req, s.maxRequestBytes)).toString('utf8');
    } catch (e) {
      if (e instanceof BodyTooLarge) writeRaw(req, res, TOO_LARGE, extra);
      return; // otherwise the client went away
    }
    writeRaw(req, res, await answerWithin(res, text, permissions), extra);
  };

  return { handlePost, fastRoute: fastRoute(s, authenticate, dispatch) };
}

/** POST / on the raw head (http1-fast.ts): the same steps and answers; what it does not admit goes to node:http, hence to handlePost. */
function fastRoute(
  s: JsonRpcRouteSettings,
  authenticate: (headers: IncomingMessage['headers']) => Promise<AuthOutcome>,
  dispatch: (text: string, permissions: string[] | undefined, signal: AbortSignal) => Promise<{ status: number; body: string }>,
): FastRoute {
  const hostVerdict = verdictCache<string | undefined, boolean>();
  const acceptVerdict = verdictCache<string | undefined, boolean>();
  const originPrefix = verdictCache<string, string | undefined>();
  const jsonReply = (answer: { status: number; body: string }): FastReply => ({ status: answer.status, headerLines: JSON_HEADER_LINE, body: answer.body });
  const dispatchReply = (result: DispatchResult): FastReply => ({ status: result.httpStatus, headerLines: JSON_HEADER_LINE, body: result.body ?? '' });
  const failed = (e: unknown): FastReply => {
    s.onError(e);
    return jsonReply({ status: 200, body: INTERNAL_ERROR_BODY });
  };
  const serveAuthenticated = async (headers: IncomingMessage['headers'], body: Buffer, signal: AbortSignal): Promise<FastReply> => {
    const outcome = await authenticate(headers);
    if (outcome === 'unauthorized') return { status: 401, body: UNAUTHORIZED_BODY };
    return jsonReply(await dispatch(body.toString('utf8'), outcome, signal));
  };
  return {
    timeoutMs: s.timeoutMs,
    timeoutReply: (body) => {
      const reply = timeoutReply(body.toString('utf8'));
      return { status: reply.status, headerLines: reply.headers ? JSON_HEADER_LINE : undefined, body: reply.body, close: true };
    },
    admit(request) {
      const h = request.headers;
      if (!hostVerdict(h.host, (host) => hostAllowed(s.allowlist, host))) return undefined;
      if (request.contentLength > s.maxRequestBytes) return undefined;
      if (!acceptVerdict(h.accept, acceptsJson)) return undefined;
      const origin = h.origin;
      if (origin === undefined) return 'Vary: origin\r\n';
      return originPrefix(origin, () => {
        // Refused origins, and origins that are not plain ASCII, are node:http's to answer.
        const step = /^[\x20-\x7e]*$/.test(origin) ? corsOutcome(s.cors, origin, 'POST', undefined) : undefined;
        return step?.kind === 'continue' ? `Vary: origin\r\nAccess-Control-Allow-Origin: ${origin}\r\n` : undefined;
      });
    },
    serve(request, body, signal) {
      if (s.auth !== undefined) return serveAuthenticated(request.headers, body, signal);
      const text = body.toString('utf8');
      const dispatchText = s.dispatcher.dispatchText;
      if (dispatchText === undefined) return dispatch(text, undefined, signal).then(jsonReply);
      let answer: DispatchResult | Promise<DispatchResult>;
      try {
        answer = withRequestSignal(signal, () => dispatchText.call(s.dispatcher, text, { transport: 'http' }));
      } catch (e) {
        return failed(e);
      }
      return answer instanceof Promise ? answer.then(dispatchReply, failed) : dispatchReply(answer);
    },
  };
}

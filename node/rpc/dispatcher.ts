/**
 * Transport-independent JSON-RPC 2.0 dispatcher with Besu's behaviour.
 *
 * Facts (hyperledger/besu snapshot 3fd224e2, 2026-03-29; ethereum/api/.../):
 * - handlers/JsonRpcParserHandler (HTTP): empty body, invalid JSON, or JSON that is neither an object
 *   nor an array -> HTTP 400 `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`;
 *   an empty array -> HTTP 400 -32600 "Invalid Request".
 * - handlers/JsonRpcArrayExecutor (HTTP batch): more than maxBatchSize elements (when > 0) -> one
 *   error object (not an array), id null, -32005 "Number of requests exceeds max batch size", HTTP
 *   200; otherwise the elements are run in order, a non-object element answers -32600 with id null,
 *   notifications are left out, and the array is written even when it ends up empty ("[]").
 * - handlers/JsonRpcObjectExecutor (HTTP single): a notification -> HTTP 200 with an empty body;
 *   an error response whose type is INVALID_REQUEST or PARSE_ERROR -> HTTP 400; an unauthorized
 *   response (from the auth check) -> HTTP 401; anything else 200.
 * - jsonrpc/execution/JsonRpcExecutor: the request object is mapped to JsonRpcRequest; a mapping
 *   failure (no or null `method`; `method` an object/array; `jsonrpc` an object/array; `params`
 *   neither an array nor null; `id` not a string/number/null) answers -32600 with id
 *   `getInteger("id")` (a numeric id as Java intValue, anything else null), even without an `id`
 *   member. `jsonrpc` is never checked ("1.0" or missing is fine). A request without an `id` member
 *   is a notification and is NOT executed (no response). `"id": null` is a request. Then: a name not
 *   in the transport's method map answers -32604 "Method not enabled" if it is one of the RpcMethod
 *   enum names, else -32601 "Method not found"; then the auth check (AuthenticatedJsonRpcProcessor,
 *   -40100 "Unauthorized"); then the method (BaseJsonRpcProcessor: InvalidJsonRpcParameters -> its
 *   error type, any other exception -> -32603 "Internal error").
 * - Response property order: jsonrpc, id, result|error (@JsonPropertyOrder); error: code, message,
 *   data (data omitted when null); a null result is written as "result":null.
 * - jsonrpc/websocket/WebSocketMessageHandler (WS frames): an empty frame -> -32600 id null; text that
 *   is not a JSON object or array -> -32603 "Internal error" id null; batches: no size limit, no
 *   empty-batch check ("[]" answers "[]"), notifications left out.
 * - jsonrpc/ipc/JsonRpcIpcService + JsonRpcParserHandler.ipcHandler (IPC): empty input or invalid
 *   JSON -> -32700; top-level scalars are skipped; an empty array -> -32600; no batch size limit.
 * - Jackson's default StreamReadConstraints reject nesting deeper than 1000 levels (parse error).
 *
 * Deliberate differences (noted for reviewers):
 * - A single notification over WS/IPC gets no answer here; Besu writes the serialized
 *   JsonRpcNoResponse (`{"jsonrpc":"2.0","type":"NONE"}`).
 * - ids are parsed with JSON.parse: integers beyond 2^53 lose precision, and 1.0 is echoed as 1
 *   (Besu echoes BigInteger ids exactly and Doubles as "1.0").
 * - maxBatchSize applies on every transport when > 0; Besu enforces --rpc-http-max-batch-size on
 *   HTTP only, while qbft-lab's WebSocket and IPC servers pass 1024 (rpc-servers.ts says why).
 */
import { RpcError, RpcErrorType, type RpcErrorTypeName } from './errors.ts';
import { RequestAbandonedError, requestSignal } from './off-loop/request-budget.ts';
import {
  BESU_RPC_METHODS,
  isMethodEnabled,
  type ApiGroup,
  type MethodRegistry,
  type RpcContext,
  type RpcTransportKind,
} from './registry.ts';

export type { ApiGroup, RpcContext, RpcMethodSpec, RpcTransportKind } from './registry.ts';

export interface DispatcherOptions {
  registry: MethodRegistry;
  enabledApis: ReadonlySet<ApiGroup>;
  /** Besu default 1024 (--rpc-http-max-batch-size); 0 or less: unlimited. */
  maxBatchSize: number;
  transport: RpcTransportKind;
  /** Auth: when set, a method is allowed iff methodsNoAuth has it or the caller's permissions permit it. */
  authEnabled?: boolean;
  methodsNoAuth?: ReadonlySet<string>;
  /** Called after every executed request (not for notifications); exceptions it throws are ignored. */
  onCall?: (
    method: string,
    params: unknown[],
    outcome: { result?: unknown; error?: { code: number; message: string } },
  ) => void;
  /** A method threw something that is not an RpcError (answered -32603 "Internal error"): for the log, as Besu logs it. */
  onInternalError?: (method: string, error: unknown) => void;
}

export interface DispatchResult {
  /** undefined: nothing to send (a single notification). */
  body: string | undefined;
  httpStatus: number;
}

/** Maximum nesting of arrays/objects accepted in request text (Jackson's default). */
export const MAX_JSON_NESTING_DEPTH = 1000;

interface ErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

type Outcome =
  | { kind: 'none' }
  | { kind: 'result'; id: unknown; result: unknown }
  | { kind: 'error'; id: unknown; error: ErrorObject; unauthorized?: boolean; invalidRequest?: boolean };

function errorOf(type: RpcErrorTypeName): ErrorObject {
  const [code, message] = RpcErrorType[type];
  return { code, message };
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Vert.x JsonObject.getInteger("id"): Number.intValue() for numbers, null otherwise. */
function javaIntId(id: unknown): number | null {
  if (typeof id !== 'number') return null;
  if (Number.isNaN(id)) return 0;
  if (Number.isInteger(id)) {
    if (id >= -0x80000000 && id <= 0x7fffffff) return id;
    if (Number.isSafeInteger(id)) return Number(BigInt.asIntN(32, BigInt(id)));
    // Beyond 2^53 JSON.parse already lost the digits; approximate Long/BigInteger.intValue.
    return Number(BigInt.asIntN(32, BigInt(id)));
  }
  // Double.intValue: truncation toward zero, saturating.
  if (id >= 0x7fffffff) return 0x7fffffff;
  if (id <= -0x80000000) return -0x80000000;
  return Math.trunc(id) | 0;
}

/** Whether the text nests arrays/objects deeper than `max` (strings skipped). */
export function exceedsNesting(text: string, max: number = MAX_JSON_NESTING_DEPTH): boolean {
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}

function stringifyId(id: unknown): string {
  const s = JSON.stringify(id);
  return s === undefined ? 'null' : s;
}

/** `{"jsonrpc":"2.0","id":…,"result":…}` (a result of undefined is written as null). */
export function formatSuccessResponse(id: unknown, result: unknown): string {
  const r = result === undefined ? 'null' : JSON.stringify(result);
  if (r === undefined) throw new TypeError('result is not JSON-serializable');
  return `{"jsonrpc":"2.0","id":${stringifyId(id)},"result":${r}}`;
}

/** `{"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…(,"data":…)}}` (data omitted when null/undefined). */
export function formatErrorResponse(id: unknown, error: ErrorObject): string {
  const e: ErrorObject =
    error.data === undefined || error.data === null
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, data: error.data };
  return `{"jsonrpc":"2.0","id":${stringifyId(id)},"error":${JSON.stringify(e)}}`;
}

/** The error response of a Besu error type, e.g. for transports: formatErrorType(null, 'UNAUTHORIZED'). */
export function formatErrorType(id: unknown, type: RpcErrorTypeName): string {
  return formatErrorResponse(id, errorOf(type));
}

/**
 * A pub/sub notification as Besu's SubscriptionResponse writes it:
 * `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x…","result":…}}`.
 */
export function subscriptionNotificationJson(subscriptionId: string, result: unknown): string {
  const r = result === undefined ? 'null' : JSON.stringify(result);
  if (r === undefined) throw new TypeError('notification result is not JSON-serializable');
  return `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":${JSON.stringify(subscriptionId)},"result":${r}}}`;
}

/**
 * Besu AuthenticationService.isPermitted for a user's permissions: the method is permitted when the
 * permissions contain "*:*", "<prefix>:*" (prefix = text before the first "_") or the method name
 * with every "_" replaced by ":" (JsonRpcMethod.getPermissions uses String.replace('_', ':')), e.g.
 * eth_blockNumber: "*:*", "eth:*", "eth:blockNumber". Exact, case-sensitive string comparison. A
 * name without "_" is permitted only by "*:*". No permissions (no user) -> false.
 */
export function isPermitted(method: string, permissions: string[] | undefined): boolean {
  if (!permissions || permissions.length === 0) return false;
  if (permissions.includes('*:*')) return true;
  const i = method.indexOf('_');
  if (i < 0) return false;
  return permissions.includes(`${method.slice(0, i)}:*`) || permissions.includes(method.replaceAll('_', ':'));
}

export class Dispatcher {
  private readonly opts: DispatcherOptions;

  constructor(opts: DispatcherOptions) {
    this.opts = opts;
  }

  get transport(): RpcTransportKind {
    return this.opts.transport;
  }

  /** Raw request text (HTTP body, WS frame, IPC message). Never throws. */
  async handleText(text: string, ctx: RpcContext): Promise<DispatchResult> {
    return this.dispatchText(text, ctx);
  }

  /**
   * handleText without the promise when it is not needed: the answer comes back synchronously
   * when every method the request runs answers synchronously (eth_blockNumber, eth_chainId, ...),
   * else as a promise. Never throws, never rejects. Transports on the hot path use this.
   */
  dispatchText(text: string, ctx: RpcContext): DispatchResult | Promise<DispatchResult> {
    try {
      return this.parseAndDispatch(text, ctx);
    } catch {
      return this.errorResult('INTERNAL_ERROR', 200);
    }
  }

  private parseAndDispatch(text: string, ctx: RpcContext): DispatchResult | Promise<DispatchResult> {
    const transport = this.opts.transport;
    if (text.length === 0) {
      return transport === 'ws' ? this.errorResult('INVALID_REQUEST', 200) : this.errorResult('PARSE_ERROR', 400);
    }
    const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text; // Jackson skips a UTF-8 BOM
    let value: unknown;
    let ok = true;
    if (exceedsNesting(src)) ok = false;
    else {
      try {
        value = JSON.parse(src);
      } catch {
        ok = false;
      }
    }
    if (!ok) {
      return transport === 'ws' ? this.errorResult('INTERNAL_ERROR', 200) : this.errorResult('PARSE_ERROR', 400);
    }
    return this.dispatchValue(value, ctx);
  }

  /** An already-parsed request or batch. Never throws. */
  async handleValue(value: unknown, ctx: RpcContext): Promise<DispatchResult> {
    return this.dispatchValue(value, ctx);
  }

  /** handleValue, synchronous when every method it runs is (see dispatchText). Never throws. */
  dispatchValue(value: unknown, ctx: RpcContext): DispatchResult | Promise<DispatchResult> {
    try {
      let answer: DispatchResult | Promise<DispatchResult>;
      if (Array.isArray(value)) answer = this.handleBatch(value, ctx);
      else if (isPlainObject(value)) answer = this.handleSingle(value, ctx);
      else {
        switch (this.opts.transport) {
          case 'ws':
            return this.errorResult('INTERNAL_ERROR', 200);
          case 'ipc':
            return { body: undefined, httpStatus: 200 };
          default:
            return this.errorResult('PARSE_ERROR', 400);
        }
      }
      return answer instanceof Promise ? answer.catch(() => this.errorResult('INTERNAL_ERROR', 200)) : answer;
    } catch {
      return this.errorResult('INTERNAL_ERROR', 200);
    }
  }

  /** One call, for in-process use: resolves the result or rejects with RpcError. */
  async call(method: string, params: unknown[], ctx: RpcContext): Promise<unknown> {
    const outcome = await this.execute(method, params, ctx, 0);
    if (outcome.kind === 'error') throw new RpcError(outcome.error.code, outcome.error.message, outcome.error.data);
    if (outcome.kind === 'result') return outcome.result;
    return undefined;
  }

  // ----------------------------------------------------------------------------------------------

  private errorResult(type: RpcErrorTypeName, httpStatus: number): DispatchResult {
    return { body: formatErrorType(null, type), httpStatus };
  }

  private handleSingle(obj: Record<string, unknown>, ctx: RpcContext): DispatchResult | Promise<DispatchResult> {
    const outcome = this.executeObject(obj, ctx);
    return outcome instanceof Promise ? outcome.then((o) => this.singleResult(o)) : this.singleResult(outcome);
  }

  private singleResult(outcome: Outcome): DispatchResult {
    if (outcome.kind === 'none') return { body: undefined, httpStatus: 200 };
    const body = this.render(outcome);
    let httpStatus = 200;
    if (outcome.kind === 'error') {
      if (outcome.unauthorized) httpStatus = 401;
      else if (outcome.invalidRequest || isBadRequestError(outcome.error)) httpStatus = 400;
    }
    return { body, httpStatus };
  }

  private async handleBatch(batch: unknown[], ctx: RpcContext): Promise<DispatchResult> {
    const transport = this.opts.transport;
    if (batch.length === 0) {
      return transport === 'ws' ? { body: '[]', httpStatus: 200 } : this.errorResult('INVALID_REQUEST', 400);
    }
    const max = this.opts.maxBatchSize;
    if (max > 0 && batch.length > max) return this.errorResult('EXCEEDS_RPC_MAX_BATCH_SIZE', 200);
    const parts: string[] = [];
    // A batch shares its request's budget: once it is spent, what is left is not run.
    const signal = requestSignal();
    for (const element of batch) {
      if (!isPlainObject(element)) {
        parts.push(formatErrorType(null, 'INVALID_REQUEST'));
        continue;
      }
      if (signal?.aborted) {
        if (Object.hasOwn(element, 'id')) parts.push(formatErrorType(element.id, 'TIMEOUT_ERROR'));
        continue;
      }
      const outcome = await this.executeObject(element, ctx);
      if (outcome.kind !== 'none') parts.push(this.render(outcome));
    }
    return { body: `[${parts.join(',')}]`, httpStatus: 200 };
  }

  /** Serializes an outcome; a result that cannot be serialized becomes -32603 for the same id. */
  private render(outcome: Exclude<Outcome, { kind: 'none' }>): string {
    try {
      return outcome.kind === 'result'
        ? formatSuccessResponse(outcome.id, outcome.result)
        : formatErrorResponse(outcome.id, outcome.error);
    } catch {
      return formatErrorType(outcome.id, 'INTERNAL_ERROR');
    }
  }

  /** JsonRpcRequest mapping (see header) then execution. */
  private executeObject(obj: Record<string, unknown>, ctx: RpcContext): Outcome | Promise<Outcome> {
    const hasId = Object.hasOwn(obj, 'id');
    const id = hasId ? obj.id : undefined;
    const method = obj.method;
    const jsonrpc = obj.jsonrpc;
    const params = obj.params;
    const invalid =
      !(typeof method === 'string' || typeof method === 'number' || typeof method === 'boolean') ||
      (typeof jsonrpc === 'object' && jsonrpc !== null) ||
      (params !== undefined && params !== null && !Array.isArray(params)) ||
      (hasId && id !== null && typeof id !== 'string' && typeof id !== 'number');
    if (invalid) {
      return { kind: 'error', id: javaIntId(id), error: errorOf('INVALID_REQUEST'), invalidRequest: true };
    }
    if (!hasId) return { kind: 'none' }; // notifications are not executed (JsonRpcExecutor)
    const name = typeof method === 'string' ? method : String(method);
    return this.execute(name, Array.isArray(params) ? params : [], ctx, id);
  }

  private execute(method: string, params: unknown[], ctx: RpcContext, id: unknown): Outcome | Promise<Outcome> {
    const outcome = this.executeUnobserved(method, params, ctx, id);
    if (this.opts.onCall === undefined) return outcome;
    return outcome instanceof Promise ? outcome.then((o) => this.observe(method, params, o)) : this.observe(method, params, outcome);
  }

  private observe(method: string, params: unknown[], outcome: Outcome): Outcome {
    const onCall = this.opts.onCall;
    if (onCall && outcome.kind !== 'none') {
      try {
        onCall(
          method,
          params,
          outcome.kind === 'result'
            ? { result: outcome.result }
            : { error: { code: outcome.error.code, message: outcome.error.message } },
        );
      } catch {
        // an observer must not change the answer
      }
    }
    return outcome;
  }

  /** Synchronous when the method's handler is (returns no thenable). */
  private executeUnobserved(method: string, params: unknown[], ctx: RpcContext, id: unknown): Outcome | Promise<Outcome> {
    const spec = this.opts.registry.get(method);
    if (spec === undefined || !isMethodEnabled(spec, this.opts.transport, this.opts.enabledApis)) {
      return {
        kind: 'error',
        id,
        error: errorOf(BESU_RPC_METHODS.has(method) ? 'METHOD_NOT_ENABLED' : 'METHOD_NOT_FOUND'),
      };
    }
    if (this.opts.authEnabled && !this.opts.methodsNoAuth?.has(method) && !isPermitted(method, ctx.permissions)) {
      return { kind: 'error', id, error: errorOf('UNAUTHORIZED'), unauthorized: true };
    }
    let result: unknown;
    const failed = (e: unknown): Outcome => {
      if (!(e instanceof RpcError) && !(e instanceof RequestAbandonedError))
        try {
          this.opts.onInternalError?.(spec.name, e);
        } catch {
          // the log's own failure must not change the answer
        }
      return failure(e, id);
    };
    try {
      result = spec.handler(params, ctx, this.opts.enabledApis);
    } catch (e) {
      return failed(e);
    }
    if (isThenable(result)) {
      return Promise.resolve(result).then(
        (value): Outcome => ({ kind: 'result', id, result: value }),
        failed,
      );
    }
    return { kind: 'result', id, result };
  }
}

/** What `await` would treat as a promise. */
function isThenable(x: unknown): x is PromiseLike<unknown> {
  return (typeof x === 'object' || typeof x === 'function') && x !== null && typeof (x as { then?: unknown }).then === 'function';
}

/** A method's exception as an outcome: its RpcError, else -32603. */
function failure(e: unknown, id: unknown): Outcome {
  if (e instanceof RpcError) {
    const error: ErrorObject = { code: e.code, message: e.message };
    if (e.data !== undefined && e.data !== null) error.data = e.data;
    return { kind: 'error', id, error };
  }
  if (e instanceof RequestAbandonedError) return { kind: 'error', id, error: errorOf('TIMEOUT_ERROR') };
  return { kind: 'error', id, error: errorOf('INTERNAL_ERROR') };
}

/**
 * JsonRpcObjectExecutor.statusCodeFromError(findErrorType(code, message)): the first RpcErrorType
 * with the same code whose message starts the error's message; only INVALID_REQUEST and
 * PARSE_ERROR map to HTTP 400.
 */
function isBadRequestError(e: ErrorObject): boolean {
  return (
    (e.code === RpcErrorType.INVALID_REQUEST[0] && e.message.startsWith(RpcErrorType.INVALID_REQUEST[1])) ||
    (e.code === RpcErrorType.PARSE_ERROR[0] && e.message.startsWith(RpcErrorType.PARSE_ERROR[1]))
  );
}

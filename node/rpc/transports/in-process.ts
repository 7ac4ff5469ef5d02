/**
 * In-process JSON-RPC: the simulator's (and tests') connection to a node's dispatcher.
 *
 * Every call goes through the same text path as a socket (`Dispatcher.handleText` on the serialized
 * request, then JSON.parse of the answer), so results, errors and notifications are exactly what a
 * WebSocket client would see. It is a connection transport (pub/sub works: eth_subscribe's
 * notifications arrive through `RpcContext.notify`). Calls and notifications are reported to
 * `onRecord` in the order they happen, as trace events:
 *   { kind: 'rpc-call', connection, id, method, params, result }      (or `error` instead of `result`)
 *   { kind: 'rpc-notification', connection, subscription, result }
 *   { kind: 'rpc-raw', connection, request, response }                 (sendRaw)
 * Request ids count 1, 2, 3… per connection. Nothing here reads clocks or randomness.
 */
import { RpcError } from '../errors.ts';
import type { Dispatcher } from '../dispatcher.ts';
import type { RpcContext } from '../registry.ts';
import type { InProcessRecord } from '../../runtime/trace-events.ts';

export type { InProcessRecord, RpcCallRecord, RpcNotificationRecord, RpcRawRecord } from '../../runtime/trace-events.ts';

export interface InProcessNotification {
  subscription: string;
  result: unknown;
  /** Set on priv_subscription notifications. */
  privacyGroupId?: string;
}

export interface InProcessRpcOptions {
  /** Trace sink for calls and notifications. */
  onRecord?: (e: InProcessRecord) => void;
  /** Called for each notification (after it is stored and recorded). */
  onNotification?: (n: InProcessNotification) => void;
  /** Connection id given to methods (subscriptions belong to it). Default 'in-process'. */
  connectionId?: string;
  /** JWT permissions of the caller, for a dispatcher with auth enabled. */
  permissions?: string[];
  /** Keep notifications for notifications()/takeNotifications() (default true). */
  keepNotifications?: boolean;
  /** Called once by close(), e.g. to drop the connection's subscriptions. */
  onClose?: (connectionId: string) => void;
  /** A notification whose result cannot be serialized is dropped and reported here. */
  onError?: (error: unknown) => void;
}

export class InProcessRpc {
  readonly context: RpcContext;
  readonly connectionId: string;
  private readonly dispatcher: Pick<Dispatcher, 'handleText'>;
  private readonly opts: InProcessRpcOptions;
  private readonly received: InProcessNotification[] = [];
  private readonly listeners = new Set<(n: InProcessNotification) => void>();
  private nextId = 1;
  private isClosed = false;

  constructor(dispatcher: Pick<Dispatcher, 'handleText'>, opts: InProcessRpcOptions = {}) {
    this.dispatcher = dispatcher;
    this.opts = opts;
    this.connectionId = opts.connectionId ?? 'in-process';
    const ctx: RpcContext = {
      transport: 'in-process',
      connectionId: this.connectionId,
      notify: (subscription, result, privacyGroupId) => this.deliver(subscription, result, privacyGroupId),
    };
    if (opts.permissions !== undefined) ctx.permissions = opts.permissions;
    this.context = ctx;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /**
   * Calls `method`: resolves its result, or rejects with the RpcError the node answered.
   * Params must be JSON values (a bigint is a TypeError, as it would be for any client).
   */
  async request(method: string, params: unknown[] = []): Promise<unknown> {
    if (this.isClosed) throw new Error(`in-process RPC connection ${this.connectionId} is closed`);
    const id = this.nextId++;
    const text = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    const wireParams = (JSON.parse(text) as { params: unknown[] }).params;
    const { body } = await this.dispatcher.handleText(text, this.context);
    if (body === undefined) throw new Error(`no response to ${method}`);
    const response = JSON.parse(body) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    if (response.error !== undefined) {
      const error: { code: number; message: string; data?: unknown } = {
        code: response.error.code,
        message: response.error.message,
      };
      if (response.error.data !== undefined) error.data = response.error.data;
      this.opts.onRecord?.({ kind: 'rpc-call', connection: this.connectionId, id, method, params: wireParams, error });
      throw new RpcError(error.code, error.message, error.data);
    }
    const result = response.result ?? null;
    this.opts.onRecord?.({ kind: 'rpc-call', connection: this.connectionId, id, method, params: wireParams, result });
    return result;
  }

  /** Sends raw text (malformed input, batches) and returns the raw answer (undefined: none). */
  async sendRaw(text: string): Promise<string | undefined> {
    if (this.isClosed) throw new Error(`in-process RPC connection ${this.connectionId} is closed`);
    const { body } = await this.dispatcher.handleText(text, this.context);
    this.opts.onRecord?.({ kind: 'rpc-raw', connection: this.connectionId, request: text, response: body ?? null });
    return body;
  }

  /** Notifications received so far (a copy). */
  notifications(): InProcessNotification[] {
    return this.received.slice();
  }

  /** Notifications received so far, emptying the store. */
  takeNotifications(): InProcessNotification[] {
    return this.received.splice(0, this.received.length);
  }

  /** Adds a listener; returns its removal. */
  onNotification(listener: (n: InProcessNotification) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Closes the connection: later notifications are ignored and requests refused; onClose runs once. */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.opts.onClose?.(this.connectionId);
  }

  private deliver(subscription: string, result: unknown, privacyGroupId?: string): void {
    if (this.isClosed) return;
    let wire: unknown;
    try {
      const text = result === undefined ? 'null' : JSON.stringify(result);
      if (text === undefined) throw new TypeError('notification result is not JSON-serializable');
      wire = JSON.parse(text);
    } catch (e) {
      this.opts.onError?.(e);
      return;
    }
    const n: InProcessNotification = privacyGroupId === undefined ? { subscription, result: wire } : { subscription, privacyGroupId, result: wire };
    if (this.opts.keepNotifications !== false) this.received.push(n);
    this.opts.onRecord?.({ kind: 'rpc-notification', connection: this.connectionId, subscription, result: wire });
    this.opts.onNotification?.(n);
    for (const l of [...this.listeners]) l(n);
  }
}

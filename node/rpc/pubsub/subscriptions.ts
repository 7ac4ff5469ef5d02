/**
 * eth_subscribe / eth_unsubscribe over connection transports (ws, ipc, in-process), after Besu's
 * ethereum/api/.../jsonrpc/websocket/subscription/ (SubscriptionManager, SubscriptionIdProvider,
 * blockheaders/NewBlockHeadersSubscriptionService, logs/LogsSubscriptionService,
 * pending/PendingTransactionSubscriptionService, PendingTransactionDroppedSubscriptionService,
 * syncing/SyncingSubscriptionService).
 *
 * - Ids: Besu hands out a counter from 1 rendered as a hex quantity ("0x1", "0x2", ...). That is
 *   the default here; `randomIds: true` draws 64-bit ids from the injected random source instead.
 *   Ids given to eth_unsubscribe are read as hex numbers ("0x01" = "0x1").
 * - newHeads: Besu's BlockResult of each block added to the canonical chain (every added entry of
 *   a reorganization, in order): transaction hashes, or full transactions with includeTransactions.
 * - logs: what Besu's BlockAddedEvent carries (DefaultBlockchain.handleChainReorg): the matching
 *   logs of removed blocks with removed: true, newest first (blocks from the old head down, each
 *   block's logs last to first), then those of added blocks in chain order. The planted switch
 *   plant-pubsub-no-removed leaves the removed ones out.
 * - newPendingTransactions: the hash of each transaction the pool accepts, or Besu's pending
 *   transaction object with includeTransactions. droppedPendingTransactions: the dropped hash.
 * - syncing: on a head change, when the sync status changed since the last notification, the
 *   SyncingResult ({startingBlock, currentBlock, highestBlock}) or false.
 * - eth_unsubscribe([id]) answers true, or -32000 "Subscription not found" when the id is unknown
 *   or belongs to another connection.
 * - Limits (not in Besu): subscriptions per connection and in total; past them eth_subscribe
 *   answers -32000 "Subscription limit reached".
 * Notifications are delivered in event order through one serial queue (log lookups are async);
 * `idle()` resolves when the queue is empty. A notify callback that throws is ignored.
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import type { ChainEntry } from '../../chain/chain.ts';
import { bytesToHex, type Hex } from '../../crypto/bytes.ts';
import { RpcError, rpcError } from '../errors.ts';
import { formatBlock } from '../formatters/block.ts';
import { formatLog } from '../formatters/receipt.ts';
import { formatTransactionPending } from '../formatters/transaction.ts';
import type { NodeApi } from '../node-api.ts';
import { parseFilterObject, quantity } from '../params.ts';
import type { RpcContext, RpcMethodSpec } from '../registry.ts';
import type { LogQuery } from '../methods/support/filters.ts';

export type SubscriptionKind = 'newHeads' | 'logs' | 'newPendingTransactions' | 'droppedPendingTransactions' | 'syncing';

export interface Subscription {
  id: string;
  connectionId: string;
  kind: SubscriptionKind;
  includeTransactions: boolean;
  query?: LogQuery;
  notify: (subscriptionId: string, result: unknown) => void;
}

export interface SubscriptionManagerOptions {
  maxPerConnection?: number;
  maxTotal?: number;
  /** Random 64-bit ids instead of Besu's counter. */
  randomIds?: boolean;
}

export const DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION = 1000;
export const DEFAULT_MAX_SUBSCRIPTIONS = 100_000;

const KINDS: ReadonlySet<string> = new Set(['newHeads', 'logs', 'newPendingTransactions', 'droppedPendingTransactions', 'syncing']);

type SyncState = { startingBlock: number; currentBlock: number; highestBlock: number } | undefined;

export class SubscriptionManager {
  private readonly subs = new Map<string, Subscription>();
  private readonly byConnection = new Map<string, Set<string>>();
  private readonly detach: Array<() => void> = [];
  private readonly maxPerConnection: number;
  private readonly maxTotal: number;
  private readonly randomIds: boolean;
  private nextId = 1n;
  private queue: Promise<void> = Promise.resolve();
  private lastSync: SyncState;
  private closed = false;

  constructor(
    private readonly api: NodeApi,
    private readonly random: () => number,
    opts: SubscriptionManagerOptions = {},
  ) {
    this.maxPerConnection = opts.maxPerConnection ?? DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION;
    this.maxTotal = opts.maxTotal ?? DEFAULT_MAX_SUBSCRIPTIONS;
    this.randomIds = opts.randomIds ?? false;
    this.lastSync = api.syncStatus();
    const node = api.node;
    this.detach.push(node.onNewHead((_head, reorg) => this.onHead(reorg.removed, reorg.added)));
    this.detach.push(node.onPoolTransaction('added', (tx) => this.onPending('newPendingTransactions', tx)));
    this.detach.push(node.onPoolTransaction('dropped', (tx) => this.onPending('droppedPendingTransactions', tx)));
  }

  methods(): RpcMethodSpec[] {
    return [
      { name: 'eth_subscribe', group: 'ETH', connectionOnly: true, handler: (params, ctx) => this.subscribe(params, ctx) },
      { name: 'eth_unsubscribe', group: 'ETH', connectionOnly: true, handler: (params, ctx) => this.unsubscribe(params, ctx) },
    ];
  }

  /** Number of live subscriptions (of one connection when given). */
  count(connectionId?: string): number {
    return connectionId === undefined ? this.subs.size : (this.byConnection.get(connectionId)?.size ?? 0);
  }

  /** Resolves once every queued notification has been delivered. */
  async idle(): Promise<void> {
    let q: Promise<void>;
    do {
      q = this.queue;
      await q;
    } while (q !== this.queue);
  }

  connectionClosed(connectionId: string): void {
    const ids = this.byConnection.get(connectionId);
    if (!ids) return;
    for (const id of ids) this.subs.delete(id);
    this.byConnection.delete(connectionId);
  }

  close(): void {
    this.closed = true;
    for (const d of this.detach.splice(0)) d();
    this.subs.clear();
    this.byConnection.clear();
  }

  // ---- methods ----------------------------------------------------------------------------------

  subscribe(params: unknown[], ctx: RpcContext): string {
    if (ctx.connectionId === undefined || !ctx.notify) throw rpcError('METHOD_NOT_ENABLED');
    if (this.closed) throw rpcError('INTERNAL_ERROR');
    const kind = params[0];
    if (typeof kind !== 'string' || !KINDS.has(kind)) throw rpcError('INVALID_SUBSCRIPTION_PARAMS');
    const opt = params[1];
    let includeTransactions = false;
    let query: LogQuery | undefined;
    if (kind === 'logs') {
      const f = parseFilterObject(opt, 'INVALID_SUBSCRIPTION_PARAMS');
      query = { addresses: f.addresses, topics: f.topics };
    } else if (kind === 'newHeads' || kind === 'newPendingTransactions') {
      if (opt !== undefined && opt !== null) {
        if (typeof opt !== 'object' || Array.isArray(opt)) throw rpcError('INVALID_SUBSCRIPTION_PARAMS');
        const inc = (opt as Record<string, unknown>).includeTransactions;
        if (inc !== undefined && inc !== null && typeof inc !== 'boolean') throw rpcError('INVALID_SUBSCRIPTION_PARAMS');
        includeTransactions = inc === true;
      }
    }
    const mine = this.byConnection.get(ctx.connectionId);
    if ((mine?.size ?? 0) >= this.maxPerConnection || this.subs.size >= this.maxTotal) {
      throw new RpcError(-32000, 'Subscription limit reached');
    }
    const id = this.newId();
    this.subs.set(id, { id, connectionId: ctx.connectionId, kind: kind as SubscriptionKind, includeTransactions, query, notify: ctx.notify });
    if (mine) mine.add(id);
    else this.byConnection.set(ctx.connectionId, new Set([id]));
    return id;
  }

  unsubscribe(params: unknown[], ctx: RpcContext): boolean {
    if (ctx.connectionId === undefined) throw rpcError('METHOD_NOT_ENABLED');
    const raw = params[0];
    if (typeof raw !== 'string' || !/^0x[0-9a-fA-F]{1,16}$/.test(raw)) throw rpcError('INVALID_SUBSCRIPTION_PARAMS');
    const id = quantity(BigInt(raw));
    const sub = this.subs.get(id);
    if (!sub || sub.connectionId !== ctx.connectionId) throw rpcError('SUBSCRIPTION_NOT_FOUND');
    this.subs.delete(id);
    const set = this.byConnection.get(sub.connectionId);
    set?.delete(id);
    if (set && set.size === 0) this.byConnection.delete(sub.connectionId);
    return true;
  }

  // ---- events -----------------------------------------------------------------------------------

  private newId(): string {
    if (!this.randomIds) {
      for (;;) {
        const id = quantity(this.nextId);
        this.nextId = this.nextId >= 0xffff_ffff_ffff_ffffn ? 1n : this.nextId + 1n;
        if (!this.subs.has(id)) return id;
      }
    }
    for (;;) {
      const hi = BigInt(Math.floor(this.random() * 2 ** 32) >>> 0);
      const lo = BigInt(Math.floor(this.random() * 2 ** 32) >>> 0);
      const v = (hi << 32n) | lo;
      if (v === 0n) continue;
      const id = quantity(v);
      if (!this.subs.has(id)) return id;
    }
  }

  private ofKind(kind: SubscriptionKind): Subscription[] {
    const out: Subscription[] = [];
    for (const s of this.subs.values()) if (s.kind === kind) out.push(s);
    return out;
  }

  /** Delivers unless the subscription has gone since. */
  private send(sub: Subscription, result: unknown): void {
    if (this.subs.get(sub.id) !== sub) return;
    try {
      sub.notify(sub.id, result);
    } catch {
      // a closed connection's sink; its connectionClosed() will follow
    }
  }

  private enqueue(job: () => Promise<void> | void): void {
    this.queue = this.queue.then(job).catch(() => undefined);
  }

  private onHead(removed: ChainEntry[], added: ChainEntry[]): void {
    if (this.subs.size === 0) {
      this.lastSync = this.api.syncStatus();
      return;
    }
    const heads = this.ofKind('newHeads');
    const logs = this.ofKind('logs');
    const syncing = this.ofKind('syncing');
    const sync = this.api.syncStatus();
    const syncChanged = !sameSync(sync, this.lastSync);
    this.lastSync = sync;
    this.enqueue(async () => {
      for (const entry of added) {
        let hashes: Record<string, unknown> | undefined;
        let full: Record<string, unknown> | undefined;
        for (const s of heads) {
          const r = s.includeTransactions ? (full ??= formatBlock(entry, true)) : (hashes ??= formatBlock(entry, false));
          this.send(s, r);
        }
      }
      if (logs.length > 0) {
        const dropRemoved = this.api.node.hooks.logsSubscriptionOmitsRemoved;
        const blocks: Array<[ChainEntry, boolean]> = [...(dropRemoved ? [] : removed.map((e) => [e, true] as [ChainEntry, boolean])), ...added.map((e) => [e, false] as [ChainEntry, boolean])];
        for (const [entry, isRemoved] of blocks) {
          if (entry.block.transactions.length === 0) continue;
          for (const s of logs) {
            const found = await this.api.logsOfBlock(entry, s.query!, isRemoved);
            for (const log of isRemoved ? found.reverse() : found) this.send(s, formatLog(log));
          }
        }
      }
      if (syncChanged && syncing.length > 0) {
        const result = sync
          ? { startingBlock: quantity(sync.startingBlock), currentBlock: quantity(sync.currentBlock), highestBlock: quantity(sync.highestBlock) }
          : false;
        for (const s of syncing) this.send(s, result);
      }
    });
  }

  private onPending(kind: 'newPendingTransactions' | 'droppedPendingTransactions', tx: TypedTransaction): void {
    const subs = this.ofKind(kind);
    if (subs.length === 0) return;
    const hash: Hex = bytesToHex(tx.hash());
    this.enqueue(() => {
      let full: Record<string, unknown> | undefined;
      for (const s of subs) this.send(s, s.includeTransactions ? (full ??= formatTransactionPending(tx)) : hash);
    });
  }
}

function sameSync(a: SyncState, b: SyncState): boolean {
  if (!a || !b) return a === b;
  return a.startingBlock === b.startingBlock && a.currentBlock === b.currentBlock && a.highestBlock === b.highestBlock;
}

/**
 * Besu's txpool_besu* methods (besu: ethereum/api/.../internal/methods/TxPoolBesuTransactions.java,
 * TxPoolBesuStatistics.java, TxPoolBesuPendingTransactions.java, results/PendingTransactionResult.java,
 * PendingTransactionsStatisticsResult.java, results/transaction/pool/PendingTransactionFilter.java,
 * parameters/PendingTransactionsParams.java; snapshot 3fd224e2).
 *
 * - txpool_besuTransactions: [{hash, isReceivedFromLocalSource, addedToPoolAt (ISO-8601 instant)}].
 * - txpool_besuStatistics: {maxSize, localCount, remoteCount}.
 * - txpool_status (TxPoolStatus.java): {pending, queued} counts as quantities.
 * - txpool_besuPendingTransactions [limit?, filters?]: TransactionPendingResult objects; filters
 *   from/to/gas/gasPrice/value/nonce with one of eq/gt/lt/action each (action only for `to`:
 *   contract creations; `from` only eq; `to` eq or action).
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import { rpcError } from '../errors.ts';
import { formatTransactionPending } from '../formatters/transaction.ts';
import { qty } from '../formatters/hex.ts';
import type { NodeApi } from '../node-api.ts';
import { optional, parseAddress, parseQuantity, parseUnsignedInt } from '../params.ts';
import type { RpcMethodSpec } from '../registry.ts';

type Op = 'eq' | 'gt' | 'lt' | 'action';
interface Filter {
  field: 'from' | 'to' | 'gas' | 'gasPrice' | 'value' | 'nonce';
  op: Op;
  value: string;
}

const FIELDS = ['from', 'to', 'gas', 'gasPrice', 'value', 'nonce'] as const;

/** Java Instant.toString() of epoch milliseconds: ISO-8601 UTC, fraction only when non-zero. */
export function instantString(ms: number): string {
  const days = Math.floor(ms / 86_400_000);
  const msOfDay = ms - days * 86_400_000;
  // civil-from-days (H. Hinnant), proleptic Gregorian
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const p2 = (n: number) => String(n).padStart(2, '0');
  const hh = Math.floor(msOfDay / 3_600_000);
  const mm = Math.floor((msOfDay % 3_600_000) / 60_000);
  const ss = Math.floor((msOfDay % 60_000) / 1000);
  const frac = msOfDay % 1000;
  return `${String(y).padStart(4, '0')}-${p2(m)}-${p2(d)}T${p2(hh)}:${p2(mm)}:${p2(ss)}${frac ? '.' + String(frac).padStart(3, '0') : ''}Z`;
}

function parseFilters(x: unknown): Filter[] {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) throw rpcError('INVALID_PENDING_TRANSACTIONS_PARAMS');
  const obj = x as Record<string, unknown>;
  const out: Filter[] = [];
  for (const field of FIELDS) {
    const m = obj[field];
    if (m === undefined || m === null) continue;
    if (typeof m !== 'object' || Array.isArray(m)) throw rpcError('INVALID_PENDING_TRANSACTIONS_PARAMS');
    const entries = Object.entries(m as Record<string, unknown>);
    if (entries.length > 1) throw rpcError('INVALID_FILTER_PARAMS');
    if (entries.length === 0) continue;
    const [key, value] = entries[0];
    const op = key.toLowerCase() as Op;
    if (op !== 'eq' && op !== 'gt' && op !== 'lt' && op !== 'action') throw rpcError('INVALID_FILTER_PARAMS');
    if (field === 'from' && op !== 'eq') throw rpcError('INVALID_FILTER_PARAMS');
    if (field === 'to' && op !== 'eq' && op !== 'action') throw rpcError('INVALID_FILTER_PARAMS');
    if (field !== 'to' && op === 'action') throw rpcError('INVALID_FILTER_PARAMS');
    out.push({ field, op, value: String(value) });
  }
  return out;
}

function compare(a: bigint, b: bigint, op: Op): boolean {
  return op === 'eq' ? a === b : op === 'gt' ? a > b : op === 'lt' ? a < b : false;
}

function matches(tx: TypedTransaction, f: Filter): boolean {
  switch (f.field) {
    case 'from':
      return tx.getSenderAddress().toString().toLowerCase() === parseAddress(f.value, 'INVALID_FILTER_PARAMS');
    case 'to':
      if (f.op === 'action') return tx.to === undefined;
      return tx.to !== undefined && tx.to.toString().toLowerCase() === parseAddress(f.value, 'INVALID_FILTER_PARAMS');
    case 'gas':
      return compare(tx.gasLimit, parseQuantity(f.value, 'INVALID_FILTER_PARAMS'), f.op);
    case 'gasPrice': {
      const gp = (tx as unknown as { gasPrice?: bigint }).gasPrice;
      if (gp === undefined) throw rpcError('INTERNAL_ERROR'); // Besu: getGasPrice().get() on a 1559 transaction
      return compare(gp, parseQuantity(f.value, 'INVALID_FILTER_PARAMS'), f.op);
    }
    case 'value':
      return compare(tx.value, parseQuantity(f.value, 'INVALID_FILTER_PARAMS'), f.op);
    case 'nonce': {
      const n = /^[+-]?(0x|0X|#)/.test(f.value) ? BigInt(f.value.replace('#', '0x')) : BigInt(f.value);
      return compare(tx.nonce, n, f.op);
    }
  }
}

export function txpoolMethods(api: NodeApi): RpcMethodSpec[] {
  return [
    {
      name: 'txpool_besuTransactions',
      group: 'TXPOOL',
      handler: () =>
        api.poolTransactions().map(({ hash, meta }) => ({
          hash,
          isReceivedFromLocalSource: meta.local,
          addedToPoolAt: instantString(meta.addedAtMs),
        })),
    },
    {
      name: 'txpool_besuStatistics',
      group: 'TXPOOL',
      handler: () => {
        const txs = api.poolTransactions();
        const local = txs.filter((t) => t.meta.local).length;
        return { maxSize: api.node.poolOptions().maxSize, localCount: local, remoteCount: txs.length - local };
      },
    },
    {
      // TxPoolStatus: pending = executable (nonces contiguous from the account's), queued = the rest
      name: 'txpool_status',
      group: 'TXPOOL',
      handler: async () => {
        const bySender = new Map<string, number>();
        for (const { tx } of api.poolTransactions()) {
          const s = tx.getSenderAddress().toString().toLowerCase();
          bySender.set(s, (bySender.get(s) ?? 0) + 1);
        }
        let pending = 0n;
        let queued = 0n;
        const head = api.head();
        for (const [sender, count] of [...bySender].sort(([a], [b]) => (a < b ? -1 : 1))) {
          const nonce = (await api.account(head, sender as `0x${string}`))?.nonce ?? 0n;
          const executable = api.node.poolNextNonce(sender as `0x${string}`, nonce) - nonce;
          pending += executable;
          queued += BigInt(count) - executable;
        }
        return { pending: qty(pending), queued: qty(queued) };
      },
    },
    {
      name: 'txpool_besuPendingTransactions',
      group: 'TXPOOL',
      handler: (params) => {
        const txs = api.poolTransactions();
        const limit = optional(params[0], (v) => parseUnsignedInt(v, 'INVALID_TRANSACTION_LIMIT_PARAMS')) ?? txs.length;
        const filters = optional(params[1], parseFilters) ?? [];
        const out: Record<string, unknown>[] = [];
        for (const { tx } of txs) {
          if (out.length >= limit) break;
          let nonceOk = true;
          try {
            nonceOk = filters.every((f) => matches(tx, f));
          } catch (e) {
            if (e instanceof SyntaxError) throw rpcError('INVALID_FILTER_PARAMS');
            throw e;
          }
          if (nonceOk) out.push(formatTransactionPending(tx));
        }
        return out;
      },
    },
  ];
}

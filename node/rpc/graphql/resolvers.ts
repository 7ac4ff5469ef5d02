/**
 * The GraphQL fields over a NodeApi, as Besu's data fetchers and adapters answer them (besu:
 * ethereum/api/.../graphql/GraphQLDataFetchers.java, internal/pojoadapter/*; snapshot 3fd224e2).
 *
 * Errors: a resolver throws FetchError(message, code?) — graphql-java reports it as
 * "Exception while fetching data (<path>) : <message>", with extensions errorCode/errorMessage
 * when Besu throws its GraphQLException (a code), else only the classification.
 *
 * Besu's answers reproduced here, some of them surprising:
 * - block(number|hash) that does not exist is an error ("Block number 544 was not found",
 *   "Block hash 0x… was not found"), not null; number and hash together: -32602 Invalid params;
 *   blocks(from > to): Invalid params; blocks past the head are left out.
 * - call and estimateGas run one simulation (TransactionSimulator.process) on the block's state
 *   and header (pending: the head's), with every price zero (transactionSimulatorAllowExceedingBalance),
 *   gas = the given gas or min(rpc gas cap, block gas limit). estimateGas is that run's gas used
 *   after refunds (no binary search: a call that needs more gas than it uses, e.g. because of the
 *   63/64 rule, is under-estimated). A transaction the simulator rejects gives status 0 and
 *   gasUsed = gas + 1 (Besu subtracts its -1 "gas remaining" marker); no state: call null,
 *   estimateGas 0 (pending: an error).
 * - transaction(hash) finds mined transactions only (BlockchainQueries.transactionByHash).
 * - Transaction.gasPrice is the transaction's gasPrice field: 0 for EIP-1559 transactions.
 *   v: legacy v; access-list and 1559 transactions their yParity; blob (and later) types null.
 *   accessList: [] for legacy transactions. raw: legacy RLP; typed transactions as an RLP byte
 *   string wrapping type || payload (Transaction.writeTo, block-body encoding). rawReceipt: the
 *   receipt with its bloom, typed ones wrapped the same way. revertReason: null (Besu stores it
 *   only with --revert-reason-enabled; this node never does).
 * - Block.raw is the block body [transactions, ommers, withdrawals?] (BlockBody.writeWrappedBodyTo),
 *   not the whole block; rawHeader the header's RLP. nextBaseFeePerGas has no fetcher in Besu:
 *   always null.
 * - Accounts read from an unavailable state are empty (balance 0, nonce 0, code 0x) except
 *   Block.account, which fails ("No value present"). Account fields are read from the state the
 *   account was fetched at (Besu's Bonsai accounts re-read code and storage at the head when no
 *   block was given; not reproduced).
 * - Log.account defaults to the log's block; Transaction.from/to to the transaction's block (the
 *   head for pooled ones); createdContract is null for pooled transactions without `block`.
 * - Ommer blocks (UncleBlockAdapter): header fields, transactionCount 0, totalDifficulty 0,
 *   ommerCount null, no transactions or ommers, raw "0x", withdrawals null.
 * - sendRawTransaction: what cannot be decoded or has no valid signature: -32602 Invalid params;
 *   pool rejections map to Besu's GraphQLError (e.g. NONCE_TOO_LOW -32001 "Nonce too low",
 *   GAS_PRICE_TOO_LOW -32009, WRONG_CHAIN_ID -32000 "Wrong Chain ID in transaction signature"),
 *   any other reason to -32603 "Internal error".
 *
 * Deliberate differences: Besu fails with a Java exception where the schema allows an answer;
 * here blocks(from) defaults to the head, logs without topics match any topics, a pooled
 * transaction's logs are null, and an absent account's address is its address (Besu: null).
 */
import type { BlockHeader } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { TransactionType, type TypedTransaction } from '@ethereumjs/tx';
import { bigIntToUnpaddedBytes, type Withdrawal } from '@ethereumjs/util';
import type { ChainEntry } from '../../chain/chain.ts';
import { bytesToHex, hexToBytes, type Hex } from '../../crypto/bytes.ts';
import { keccak256 } from '../../crypto/keccak.ts';
import { TX_POOL_RPC_ERRORS, type TxPoolError } from '../../execution/tx-pool.ts';
import { RpcError } from '../errors.ts';
import type { LogWithMeta, ReceiptWithMeta } from '../formatters/receipt.ts';
import { accessListResult } from '../formatters/transaction.ts';
import { CALL_PARAMS, type CallBlockContext, type CallRequest } from '../../execution/calls/call-types.ts';
import { RequestAbandonedError } from '../off-loop/request-budget.ts';
import type { NodeApi } from '../node-api.ts';
import type { TopicFilter } from '../params.ts';

/** An exception of a data fetcher; `code`: Besu's GraphQLException (errorCode/errorMessage). */
export class FetchError extends Error {
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
    this.name = 'FetchError';
  }
}

/** Besu's GraphQLError values thrown as GraphQLException. */
export const GRAPHQL_ERRORS = {
  INVALID_PARAMS: [-32602, 'Invalid params'],
  INTERNAL_ERROR: [-32603, 'Internal error'],
  NONCE_TOO_LOW: [-32001, 'Nonce too low'],
  INVALID_TRANSACTION_SIGNATURE: [-32002, 'Invalid signature'],
  INTRINSIC_GAS_EXCEEDS_LIMIT: [-32003, 'Intrinsic gas exceeds gas limit'],
  TRANSACTION_UPFRONT_COST_EXCEEDS_BALANCE: [-32004, 'Upfront cost exceeds account balance'],
  EXCEEDS_BLOCK_GAS_LIMIT: [-32005, 'Transaction gas limit exceeds block gas limit'],
  INCORRECT_NONCE: [-32006, 'Nonce too high'],
  TX_SENDER_NOT_AUTHORIZED: [-32007, 'Sender account not authorized to send transactions'],
  CHAIN_HEAD_WORLD_STATE_NOT_AVAILABLE: [-32008, 'Initial sync is still in progress'],
  GAS_PRICE_TOO_LOW: [-32009, 'Gas price below configured minimum gas price'],
  WRONG_CHAIN_ID: [-32000, 'Wrong Chain ID in transaction signature'],
  REPLAY_PROTECTED_SIGNATURES_NOT_SUPPORTED: [-32000, 'Signatures with replay protection are not supported'],
  TX_FEECAP_EXCEEDED: [-32000, 'Transaction fee cap exceeded'],
} as const satisfies Record<string, readonly [number, string]>;

type GraphqlErrorName = keyof typeof GRAPHQL_ERRORS;

function besuError(name: GraphqlErrorName): FetchError {
  const [code, message] = GRAPHQL_ERRORS[name];
  return new FetchError(message, code);
}

/** GraphQLError.of(TransactionInvalidReason). */
const POOL_REASONS: Partial<Record<string, GraphqlErrorName>> = {
  WRONG_CHAIN_ID: 'WRONG_CHAIN_ID',
  REPLAY_PROTECTED_SIGNATURES_NOT_SUPPORTED: 'REPLAY_PROTECTED_SIGNATURES_NOT_SUPPORTED',
  INVALID_SIGNATURE: 'INVALID_TRANSACTION_SIGNATURE',
  UPFRONT_COST_EXCEEDS_BALANCE: 'TRANSACTION_UPFRONT_COST_EXCEEDS_BALANCE',
  NONCE_TOO_LOW: 'NONCE_TOO_LOW',
  NONCE_TOO_HIGH: 'INCORRECT_NONCE',
  INTRINSIC_GAS_EXCEEDS_GAS_LIMIT: 'INTRINSIC_GAS_EXCEEDS_LIMIT',
  EXCEEDS_BLOCK_GAS_LIMIT: 'EXCEEDS_BLOCK_GAS_LIMIT',
  TX_SENDER_NOT_AUTHORIZED: 'TX_SENDER_NOT_AUTHORIZED',
  CHAIN_HEAD_WORLD_STATE_NOT_AVAILABLE: 'CHAIN_HEAD_WORLD_STATE_NOT_AVAILABLE',
  GAS_PRICE_TOO_LOW: 'GAS_PRICE_TOO_LOW',
  TX_FEECAP_EXCEEDED: 'TX_FEECAP_EXCEEDED',
};

/** The pool's rejection reason behind a JSON-RPC error of NodeApi.sendRawTransaction. */
function poolReasonOf(e: RpcError): TxPoolError | undefined {
  for (const [reason, { code, message }] of Object.entries(TX_POOL_RPC_ERRORS)) if (code === e.code && message === e.message) return reason as TxPoolError;
  return undefined;
}

// ---- sources ------------------------------------------------------------------------------------

/** NormalBlockAdapter (a chain entry) or UncleBlockAdapter (an ommer header). */
export type BlockSrc = { kind: 'block'; entry: ChainEntry } | { kind: 'ommer'; header: BlockHeader };

export interface AccountSrc {
  address: Hex;
  /** The block whose state is read; undefined: EmptyAccountAdapter (no state). */
  entry?: ChainEntry;
}

export interface TxSrc {
  tx: TypedTransaction;
  hash: Hex;
  /** Absent for a pooled transaction. */
  entry?: ChainEntry;
  index?: number;
}

export interface LogSrc {
  log: LogWithMeta;
}

export interface CallOutcome {
  data: Hex;
  gasUsed: bigint;
  status: bigint;
}

type Args = Record<string, any>;
export type Resolver = (src: any, args: Args) => unknown;

const fields = (tx: TypedTransaction) => tx as unknown as Record<string, any>;

function headerOf(b: BlockSrc): BlockHeader {
  return b.kind === 'block' ? b.entry.block.header : b.header;
}

function addr(a: { toString(): string }): Hex {
  return a.toString().toLowerCase() as Hex;
}

function topicsOf(raw: Hex[][] | undefined | null): TopicFilter {
  return (raw ?? []).map((alts) => alts.map((t) => t.toLowerCase() as Hex));
}

function addressesOf(raw: Hex[] | undefined | null): Hex[] {
  return (raw ?? []).map((a) => a.toLowerCase() as Hex);
}

function supports1559(tx: TypedTransaction): boolean {
  return tx.type !== TransactionType.Legacy && tx.type !== TransactionType.AccessListEIP2930;
}

/** Transaction.getEffectivePriorityFeePerGas. */
function effectiveTip(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  const f = fields(tx);
  if (baseFee === undefined) return f.gasPrice ?? 0n;
  if (supports1559(tx)) {
    if (baseFee >= f.maxFeePerGas) return 0n;
    const room = f.maxFeePerGas - baseFee;
    return f.maxPriorityFeePerGas < room ? f.maxPriorityFeePerGas : room;
  }
  return baseFee >= f.gasPrice ? 0n : f.gasPrice - baseFee;
}

/** Transaction.writeTo (block-body encoding): legacy RLP, typed as an RLP byte string. */
export function besuRawTransaction(tx: TypedTransaction): Uint8Array {
  const bytes = tx.serialize();
  return tx.type === TransactionType.Legacy ? bytes : RLP.encode(bytes);
}

/** TransactionReceiptEncoder.writeTo with the DEFAULT configuration (bloom, opaque typed receipts). */
export function besuRawReceipt(r: ReceiptWithMeta): Uint8Array {
  const first = r.root ?? (r.status === 1 ? Uint8Array.of(1) : new Uint8Array());
  const logs = r.logs.map((l) => [hexToBytes(l.address), l.topics, l.data]);
  const body = RLP.encode([first, bigIntToUnpaddedBytes(r.cumulativeGasUsed), r.logsBloom, logs]);
  if (r.type === 0) return body;
  const typed = new Uint8Array(body.length + 1);
  typed[0] = r.type;
  typed.set(body, 1);
  return RLP.encode(typed);
}


// ---- resolvers ----------------------------------------------------------------------------------

export function buildResolvers(api: NodeApi): Record<string, Record<string, Resolver>> {
  /** BlockchainQueries.getAndMapWorldState(number): the canonical block whose state is readable. */
  const stateAt = (n: bigint): ChainEntry | undefined => {
    if (n < 0n || n > BigInt(api.headNumber())) return undefined;
    const entry = api.byNumber(n);
    return entry && api.stateAvailable(entry) ? entry : undefined;
  };
  const accountAt = (address: Hex, n: bigint): AccountSrc => ({ address: address.toLowerCase() as Hex, entry: stateAt(n) });
  const headNumber = () => BigInt(api.headNumber());
  const txOfEntry = (entry: ChainEntry, index: number): TxSrc | null => {
    const tx = entry.block.transactions[index];
    return tx ? { tx, hash: bytesToHex(tx.hash()), entry, index } : null;
  };
  const receipt = async (t: TxSrc): Promise<ReceiptWithMeta | undefined> =>
    t.entry && t.index !== undefined ? (await api.receipts(t.entry))[t.index] : undefined;

  /** TransactionSimulator.process with transactionSimulatorAllowExceedingBalance on `block`. */
  async function simulate(block: CallBlockContext, data: Args): Promise<CallOutcome | undefined> {
    const req: CallRequest = {
      from: data.from ?? undefined,
      to: data.to ?? undefined,
      gas: data.gas ?? undefined,
      gasPrice: data.gasPrice ?? undefined,
      maxFeePerGas: data.maxFeePerGas ?? undefined,
      maxPriorityFeePerGas: data.maxPriorityFeePerGas ?? undefined,
      value: data.value ?? undefined,
      data: data.data ? hexToBytes(data.data) : undefined,
    };
    const cap = api.gasCap;
    const gas = req.gas !== undefined ? (cap > 0n && req.gas > cap ? cap : req.gas) : cap > 0n && cap < block.gasLimit ? cap : block.gasLimit;
    let outcome;
    try {
      outcome = await api.simulator.simulate(block, req, gas, { params: CALL_PARAMS.exceedingBalance, chainId: api.chainId });
    } catch (e) {
      if (e instanceof RequestAbandonedError) throw e;
      return undefined;
    }
    if (outcome.kind === 'invalid') return { data: '0x', gasUsed: gas + 1n, status: 0n };
    return { data: bytesToHex(outcome.output), gasUsed: outcome.gasUsed, status: outcome.success ? 1n : 0n };
  }
  const simulateOn = (b: BlockSrc, data: Args) => {
    if (b.kind !== 'block' || !api.stateAvailable(b.entry)) return Promise.resolve(undefined);
    return simulate(api.callBlockOf(b.entry), data);
  };

  const blockHeaderFields: Record<string, Resolver> = {
    number: (b: BlockSrc) => headerOf(b).number,
    hash: (b: BlockSrc) => (b.kind === 'block' ? b.entry.hash : bytesToHex(b.header.hash())),
    parent: (b: BlockSrc) => {
      const parent = api.byHash(bytesToHex(headerOf(b).parentHash));
      return parent ? { kind: 'block', entry: parent } : null;
    },
    nonce: (b: BlockSrc) => bytesToHex(headerOf(b).nonce),
    transactionsRoot: (b: BlockSrc) => bytesToHex(headerOf(b).transactionsTrie),
    stateRoot: (b: BlockSrc) => bytesToHex(headerOf(b).stateRoot),
    receiptsRoot: (b: BlockSrc) => bytesToHex(headerOf(b).receiptTrie),
    miner: (b: BlockSrc, a) => accountAt(addr(headerOf(b).coinbase), a.block ?? headerOf(b).number),
    extraData: (b: BlockSrc) => bytesToHex(headerOf(b).extraData),
    gasLimit: (b: BlockSrc) => headerOf(b).gasLimit,
    gasUsed: (b: BlockSrc) => headerOf(b).gasUsed,
    baseFeePerGas: (b: BlockSrc) => headerOf(b).baseFeePerGas ?? null,
    nextBaseFeePerGas: () => null,
    timestamp: (b: BlockSrc) => headerOf(b).timestamp,
    logsBloom: (b: BlockSrc) => bytesToHex(headerOf(b).logsBloom),
    mixHash: (b: BlockSrc) => bytesToHex(headerOf(b).mixHash),
    difficulty: (b: BlockSrc) => headerOf(b).difficulty,
    ommerHash: (b: BlockSrc) => bytesToHex(headerOf(b).uncleHash),
    account: (b: BlockSrc, a) => {
      const entry = stateAt(headerOf(b).number);
      if (!entry) throw new FetchError('No value present');
      return { address: (a.address as Hex).toLowerCase(), entry };
    },
    logs: async (b: BlockSrc, a) => {
      if (b.kind !== 'block') return [];
      const logs = await api.logsOfBlockHash(b.entry, { addresses: addressesOf(a.filter.addresses), topics: topicsOf(a.filter.topics) });
      return logs.map((log) => ({ log }));
    },
    call: (b: BlockSrc, a) => simulateOn(b, a.data).then((r) => r ?? null),
    estimateGas: (b: BlockSrc, a) => simulateOn(b, a.data).then((r) => r?.gasUsed ?? 0n),
    rawHeader: (b: BlockSrc) => bytesToHex(headerOf(b).serialize()),
    raw: (b: BlockSrc) => (b.kind === 'block' ? bytesToHex(RLP.encode(b.entry.block.raw().slice(1, b.entry.block.withdrawals ? 4 : 3))) : '0x'),
    withdrawalsRoot: (b: BlockSrc) => {
      const root = headerOf(b).withdrawalsRoot;
      return root ? bytesToHex(root) : null;
    },
    withdrawals: (b: BlockSrc) => (b.kind === 'block' ? (b.entry.block.withdrawals ?? null) : null),
    blobGasUsed: (b: BlockSrc) => headerOf(b).blobGasUsed ?? null,
    excessBlobGas: (b: BlockSrc) => headerOf(b).excessBlobGas ?? null,
  };

  const Block: Record<string, Resolver> = {
    ...blockHeaderFields,
    transactionCount: (b: BlockSrc) => (b.kind === 'block' ? BigInt(b.entry.block.transactions.length) : 0n),
    totalDifficulty: (b: BlockSrc) => (b.kind === 'block' ? b.entry.td : 0n),
    ommerCount: (b: BlockSrc) => (b.kind === 'block' ? BigInt(b.entry.block.uncleHeaders.length) : null),
    ommers: (b: BlockSrc) => (b.kind === 'block' ? b.entry.block.uncleHeaders.map((header) => ({ kind: 'ommer', header })) : []),
    ommerAt: (b: BlockSrc, a) => {
      if (b.kind !== 'block') return null;
      const header = b.entry.block.uncleHeaders[Number(BigInt.asIntN(32, a.index))];
      return header ? { kind: 'ommer', header } : null;
    },
    transactions: (b: BlockSrc) => (b.kind === 'block' ? b.entry.block.transactions.map((_, i) => txOfEntry(b.entry, i)!) : []),
    transactionAt: (b: BlockSrc, a) => (b.kind === 'block' ? txOfEntry(b.entry, Number(BigInt.asIntN(32, a.index))) : null),
  };

  const Account: Record<string, Resolver> = {
    address: (a: AccountSrc) => a.address,
    balance: async (a: AccountSrc) => (a.entry ? ((await api.account(a.entry, a.address))?.balance ?? 0n) : 0n),
    transactionCount: async (a: AccountSrc) => (a.entry ? ((await api.account(a.entry, a.address))?.nonce ?? 0n) : 0n),
    code: async (a: AccountSrc) => (a.entry ? bytesToHex(await api.code(a.entry, a.address)) : '0x'),
    storage: async (a: AccountSrc, args) => {
      if (!a.entry) return '0x' + '00'.repeat(32);
      const v = await api.storage(a.entry, a.address, BigInt(args.slot));
      const padded = new Uint8Array(32);
      padded.set(v.slice(-32), 32 - Math.min(32, v.length));
      return bytesToHex(padded);
    },
  };

  const Transaction: Record<string, Resolver> = {
    hash: (t: TxSrc) => t.hash,
    nonce: (t: TxSrc) => t.tx.nonce,
    index: (t: TxSrc) => (t.index === undefined ? null : BigInt(t.index)),
    from: (t: TxSrc, a) => accountAt(addr(t.tx.getSenderAddress()), a.block ?? (t.entry ? BigInt(t.entry.number) : headNumber())),
    to: (t: TxSrc, a) => (t.tx.to ? accountAt(addr(t.tx.to), a.block ?? (t.entry ? BigInt(t.entry.number) : headNumber())) : null),
    value: (t: TxSrc) => t.tx.value,
    gasPrice: (t: TxSrc) => fields(t.tx).gasPrice ?? 0n,
    maxFeePerGas: (t: TxSrc) => (supports1559(t.tx) ? fields(t.tx).maxFeePerGas : null),
    maxPriorityFeePerGas: (t: TxSrc) => (supports1559(t.tx) ? fields(t.tx).maxPriorityFeePerGas : null),
    maxFeePerBlobGas: (t: TxSrc) => fields(t.tx).maxFeePerBlobGas ?? null,
    effectiveTip: async (t: TxSrc) => ((await receipt(t)) && t.entry ? effectiveTip(t.tx, t.entry.block.header.baseFeePerGas) : null),
    gas: (t: TxSrc) => t.tx.gasLimit,
    inputData: (t: TxSrc) => bytesToHex(t.tx.data),
    block: (t: TxSrc) => (t.entry ? { kind: 'block', entry: t.entry } : null),
    status: async (t: TxSrc) => {
      const r = await receipt(t);
      return r?.status === undefined ? null : BigInt(r.status);
    },
    revertReason: () => null,
    gasUsed: async (t: TxSrc) => (await receipt(t))?.gasUsed ?? null,
    cumulativeGasUsed: async (t: TxSrc) => (await receipt(t))?.cumulativeGasUsed ?? null,
    effectiveGasPrice: async (t: TxSrc) => (await receipt(t))?.effectiveGasPrice ?? null,
    blobGasUsed: async (t: TxSrc) => (await receipt(t))?.blobGasUsed ?? null,
    blobGasPrice: async (t: TxSrc) => (await receipt(t))?.blobGasPrice ?? null,
    createdContract: async (t: TxSrc, a) => {
      if (t.tx.to) return null;
      if (!t.entry && a.block == null) return null;
      const address = (await receipt(t))?.contractAddress ?? contractAddressOf(t.tx);
      return accountAt(address, a.block ?? BigInt(t.entry!.number));
    },
    logs: async (t: TxSrc) => {
      const r = await receipt(t);
      return r ? r.logs.map((log) => ({ log })) : null;
    },
    r: (t: TxSrc) => t.tx.r ?? 0n,
    s: (t: TxSrc) => t.tx.s ?? 0n,
    v: (t: TxSrc) => {
      if (t.tx.type === TransactionType.Legacy) return t.tx.v ?? null;
      return t.tx.type < TransactionType.BlobEIP4844 ? (t.tx.v ?? null) : null;
    },
    yParity: (t: TxSrc) => (t.tx.type === TransactionType.Legacy ? null : (t.tx.v ?? null)),
    type: (t: TxSrc) => BigInt(t.tx.type),
    accessList: (t: TxSrc) => accessListResult(t.tx) ?? [],
    raw: (t: TxSrc) => bytesToHex(besuRawTransaction(t.tx)),
    rawReceipt: async (t: TxSrc) => {
      const r = await receipt(t);
      return r ? bytesToHex(besuRawReceipt(r)) : null;
    },
    blobVersionedHashes: (t: TxSrc) => (fields(t.tx).blobVersionedHashes ?? []).map((h: Hex | Uint8Array) => (typeof h === 'string' ? h.toLowerCase() : bytesToHex(h))),
  };

  const Log: Record<string, Resolver> = {
    index: (l: LogSrc) => BigInt(l.log.logIndex),
    account: (l: LogSrc, a) => accountAt(l.log.address, a.block ?? BigInt(l.log.blockNumber)),
    topics: (l: LogSrc) => l.log.topics.map((t) => bytesToHex(t)),
    data: (l: LogSrc) => bytesToHex(l.log.data),
    transaction: (l: LogSrc) => {
      const m = api.minedTransaction(l.log.transactionHash);
      if (!m) throw new FetchError('No value present');
      return { tx: m.tx, hash: l.log.transactionHash, entry: m.entry, index: m.index };
    },
  };

  const Withdrawal: Record<string, Resolver> = {
    index: (w: Withdrawal) => w.index,
    validator: (w: Withdrawal) => w.validatorIndex,
    address: (w: Withdrawal) => addr(w.address),
    amount: (w: Withdrawal) => w.amount,
  };

  const Pending: Record<string, Resolver> = {
    transactionCount: () => BigInt(api.poolTransactions().length),
    transactions: () => api.poolTransactions().map(({ tx, hash }) => ({ tx, hash })),
    account: (_p, a) => accountAt(a.address, headNumber()),
    call: (_p, a) => simulateOn({ kind: 'block', entry: api.head() }, a.data).then((r) => r ?? null),
    estimateGas: (_p, a) => simulateOn({ kind: 'block', entry: api.head() }, a.data).then((r) => r?.gasUsed ?? null),
  };

  const Query: Record<string, Resolver> = {
    block: (_r, a) => {
      const number: bigint | null | undefined = a.number;
      const hash: Hex | null | undefined = a.hash;
      if (number != null && hash != null) throw besuError('INVALID_PARAMS');
      if (number != null) {
        const entry = number < 0n || number > headNumber() ? undefined : api.byNumber(number);
        if (!entry) throw new FetchError(`Block number ${number} was not found`);
        return { kind: 'block', entry };
      }
      if (hash != null) {
        const entry = api.byHash(hash);
        if (!entry) throw new FetchError(`Block hash ${hash} was not found`);
        return { kind: 'block', entry };
      }
      return { kind: 'block', entry: api.head() };
    },
    blocks: (_r, a) => {
      const head = headNumber();
      const from: bigint = a.from ?? head;
      const to: bigint = a.to ?? head;
      if (from > to) throw besuError('INVALID_PARAMS');
      const out: BlockSrc[] = [];
      for (let n = from < 0n ? 0n : from; n <= to && n <= head; n++) out.push({ kind: 'block', entry: api.byNumber(n)! });
      return out;
    },
    pending: () => ({}),
    transaction: (_r, a) => {
      const found = api.minedTransaction((a.hash as Hex).toLowerCase() as Hex);
      return found ? { tx: found.tx, hash: (a.hash as Hex).toLowerCase(), entry: found.entry, index: found.index } : null;
    },
    logs: async (_r, a) => {
      const head = headNumber();
      const from: bigint = a.filter.fromBlock ?? head;
      const to: bigint = a.filter.toBlock ?? head;
      if (from > to) throw besuError('INVALID_PARAMS');
      // Besu puts no range limit on GraphQL logs; qbft-lab bounds the work a query can ask for with
      // the JSON-RPC one (--rpc-max-logs-range).
      if (api.maxLogsRange > 0 && to - from > BigInt(api.maxLogsRange)) throw new FetchError('Requested range exceeds maximum RPC range limit', -32005);
      const logs = await api.logsInRange(from, to, { addresses: addressesOf(a.filter.addresses), topics: topicsOf(a.filter.topics) });
      return logs.map((log) => ({ log }));
    },
    gasPrice: () => api.gasPrice(),
    maxPriorityFeePerGas: () => api.maxPriorityFeePerGas(),
    syncing: () => {
      const s = api.syncStatus();
      return s ? { startingBlock: BigInt(s.startingBlock), currentBlock: BigInt(s.currentBlock), highestBlock: BigInt(s.highestBlock) } : null;
    },
    chainID: () => api.chainId,
  };

  const Mutation: Record<string, Resolver> = {
    sendRawTransaction: async (_r, a) => {
      try {
        return await api.sendRawTransaction(hexToBytes(a.data));
      } catch (e) {
        if (!(e instanceof RpcError)) throw e;
        if (e.code === GRAPHQL_ERRORS.INVALID_PARAMS[0] && e.message === GRAPHQL_ERRORS.INVALID_PARAMS[1]) throw besuError('INVALID_PARAMS');
        const reason = poolReasonOf(e);
        throw besuError((reason && POOL_REASONS[reason]) ?? 'INTERNAL_ERROR');
      }
    },
  };

  const SyncState: Record<string, Resolver> = {
    startingBlock: (s) => s.startingBlock,
    currentBlock: (s) => s.currentBlock,
    highestBlock: (s) => s.highestBlock,
  };
  const CallResult: Record<string, Resolver> = { data: (c: CallOutcome) => c.data, gasUsed: (c: CallOutcome) => c.gasUsed, status: (c: CallOutcome) => c.status };
  const AccessTuple: Record<string, Resolver> = { address: (e) => e.address, storageKeys: (e) => e.storageKeys };
  return { Block, Account, Transaction, Log, Withdrawal, Pending, Query, Mutation, SyncState, CallResult, AccessTuple };
}

/** The address a contract-creating transaction creates (sender and nonce). */
function contractAddressOf(tx: TypedTransaction): Hex {
  const sender = tx.getSenderAddress().bytes;
  const nonce = bigIntToUnpaddedBytes(tx.nonce);
  return bytesToHex(keccak256(RLP.encode([sender, nonce])).slice(12));
}

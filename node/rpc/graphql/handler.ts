/**
 * EIP-1767 GraphQL over a NodeApi (besu: ethereum/api/.../graphql/GraphQLHttpService.java,
 * GraphQLDataFetchers.java, internal/pojoadapter/*).
 *
 * HTTP (GraphQLHttpService.handleGraphQLRequest): GET ?query=&operationName=&variables=; POST with
 * application/json {query, variables, operationName}; any other POST content type is the raw query
 * (application/graphql). Other methods: 405. Status: 200 when there are no errors; 400 whenever the
 * result has errors (parse, validation, complexity, execution; the body keeps `data` when there is
 * some); 400 for an undecodable JSON body.
 *
 * Fields implemented read the node through NodeApi; the rest (Transaction.raw/rawReceipt/accessList/
 * blob fields, Block.raw/rawHeader, Log.account(block) on old blocks is fine, protocolVersion)
 * resolve to a GraphQL error "<Type>.<field> not supported" rather than guessed data.
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import {
  execute,
  GraphQLError,
  Kind,
  parse,
  validate,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  type SelectionSetNode,
} from 'graphql';
import type { ChainEntry } from '../../chain/chain.ts';
import { bytesToHex, hexToBytes, type Hex } from '../../crypto/bytes.ts';
import { RpcError } from '../errors.ts';
import type { LogWithMeta } from '../formatters/receipt.ts';
import { effectiveGasPrice } from '../formatters/transaction.ts';
import { ethExecMethods } from '../methods/eth-exec.ts';
import { CALL_PARAMS, type CallRequest, type SimBlock } from '../methods/support/simulator.ts';
import type { NodeApi } from '../node-api.ts';
import type { TopicFilter } from '../params.ts';
import { buildEthSchema } from './schema.ts';
import type { GraphqlRequest, GraphqlResponse } from '../transports/graphql-http.ts';

export type { GraphqlRequest, GraphqlResponse };
export interface GraphqlHandlerOptions {
  /** Besu --graphql-http-max-query-complexity... default 200: the number of selected fields. */
  maxQueryComplexity?: number;
}

const JSON_TYPE = 'application/json; charset=utf-8';

// ---- sources ----------------------------------------------------------------------------------

interface BlockSrc {
  entry: ChainEntry;
}
interface AccountSrc {
  address: Hex;
  /** The block whose state is read. */
  entry: ChainEntry;
}
interface TxSrc {
  tx: TypedTransaction;
  hash: Hex;
  /** Absent for a pooled transaction. */
  entry?: ChainEntry;
  index?: number;
}
interface LogSrc {
  log: LogWithMeta;
}

type Args = Record<string, any>;
type Resolver = (src: any, args: Args, info: GraphQLResolveInfo) => unknown;

function fail(message: string): never {
  throw new GraphQLError(message);
}

/** RpcError -> GraphQLError with the JSON-RPC message. */
async function rpc<T>(f: () => Promise<T> | T): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof RpcError) throw new GraphQLError(e.message, { extensions: { errorCode: e.code } });
    throw e;
  }
}

function notSupported(type: string, field: string): Resolver {
  return () => fail(`${type}.${field} not supported`);
}

function addr(a: { toString(): string } | undefined): Hex | null {
  return a ? (a.toString().toLowerCase() as Hex) : null;
}

function txFields(tx: TypedTransaction): Record<string, any> {
  return tx as unknown as Record<string, any>;
}

function is1559(tx: TypedTransaction): boolean {
  return txFields(tx).maxFeePerGas !== undefined;
}

function topicsOf(raw: string[][] | undefined | null): TopicFilter {
  return (raw ?? []).map((alts) => alts.map((t) => t.toLowerCase() as Hex));
}

function addressesOf(raw: string[] | undefined | null): Hex[] {
  return (raw ?? []).map((a) => a.toLowerCase() as Hex);
}

function callRequest(data: Args): CallRequest {
  return {
    from: data.from ?? undefined,
    to: data.to ?? undefined,
    gas: data.gas ?? undefined,
    gasPrice: data.gasPrice ?? undefined,
    maxFeePerGas: data.maxFeePerGas ?? undefined,
    maxPriorityFeePerGas: data.maxPriorityFeePerGas ?? undefined,
    value: data.value ?? undefined,
    data: data.data ? hexToBytes(data.data) : undefined,
  };
}

/** CallData as an eth_estimateGas call object (hex quantities). */
function callObject(data: Args): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) {
    if (v === null || v === undefined) continue;
    out[k === 'data' ? 'input' : k] = typeof v === 'bigint' ? '0x' + v.toString(16) : String(v);
  }
  return out;
}

// ---- complexity -------------------------------------------------------------------------------

/** The number of fields a document selects (fragments expanded; __typename counts too). */
export function queryComplexity(doc: DocumentNode, operationName?: string | null): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const count = (set: SelectionSetNode | undefined, seen: Set<string>): number => {
    if (!set) return 0;
    let n = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) n += 1 + count(s.selectionSet, seen);
      else if (s.kind === Kind.INLINE_FRAGMENT) n += count(s.selectionSet, seen);
      else {
        const f = fragments.get(s.name.value);
        if (f && !seen.has(f.name.value)) n += count(f.selectionSet, new Set([...seen, f.name.value]));
      }
    }
    return n;
  };
  let max = 0;
  for (const d of doc.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    if (operationName && d.name?.value !== operationName) continue;
    max = Math.max(max, count(d.selectionSet, new Set()));
  }
  return max;
}

// ---- resolvers --------------------------------------------------------------------------------

function buildResolvers(api: NodeApi): Record<string, Record<string, Resolver>> {
  const exec = ethExecMethods(api);
  const estimateHandler = exec.find((m) => m.name === 'eth_estimateGas')!.handler;

  const blockAt = (n: bigint | undefined | null): ChainEntry => {
    if (n === undefined || n === null) return api.head();
    return api.byNumber(n) ?? fail(`Block ${n} not found`);
  };
  const account = (address: Hex, entry: ChainEntry): AccountSrc => ({ address: address.toLowerCase() as Hex, entry });
  const txOfEntry = (entry: ChainEntry, index: number): TxSrc | null => {
    const tx = entry.block.transactions[index];
    return tx ? { tx, hash: bytesToHex(tx.hash()), entry, index } : null;
  };
  const receipt = async (t: TxSrc) => (t.entry && t.index !== undefined ? (await api.receipts(t.entry))[t.index] : undefined);

  async function simulateCall(block: SimBlock, data: Args) {
    const req = callRequest(data);
    const cap = api.gasCap;
    const gas = req.gas !== undefined ? (cap > 0n && req.gas > cap ? cap : req.gas) : cap > 0n && cap < block.gasLimit ? cap : block.gasLimit;
    const priced = (req.gasPrice ?? 0n) !== 0n || (req.maxFeePerGas ?? 0n) !== 0n || (req.maxPriorityFeePerGas ?? 0n) !== 0n;
    const params = priced ? CALL_PARAMS.futureNonce : CALL_PARAMS.exceedingBalance;
    const outcome = await api.simulator.simulate(block, req, gas, { params, chainId: api.chainId });
    if (outcome.kind === 'invalid') fail(outcome.message || outcome.reason);
    return { data: bytesToHex(outcome.output), gasUsed: outcome.gasUsed, status: outcome.success ? 1n : 0n };
  }
  const estimate = (data: Args, blockParam: string) => rpc(async () => BigInt((await estimateHandler([callObject(data), blockParam], { transport: 'in-process' })) as string));

  const Block: Record<string, Resolver> = {
    number: (b: BlockSrc) => BigInt(b.entry.number),
    hash: (b: BlockSrc) => b.entry.hash,
    parent: (b: BlockSrc) => (b.entry.number === 0 ? null : { entry: api.byHash(b.entry.parentHash) ?? fail('Parent block not found') }),
    nonce: (b: BlockSrc) => bytesToHex(b.entry.block.header.nonce),
    transactionsRoot: (b: BlockSrc) => bytesToHex(b.entry.block.header.transactionsTrie),
    stateRoot: (b: BlockSrc) => bytesToHex(b.entry.block.header.stateRoot),
    receiptsRoot: (b: BlockSrc) => bytesToHex(b.entry.block.header.receiptTrie),
    miner: (b: BlockSrc, a) => account(b.entry.coinbase, blockAt(a.block ?? BigInt(b.entry.number))),
    extraData: (b: BlockSrc) => bytesToHex(b.entry.block.header.extraData),
    gasLimit: (b: BlockSrc) => b.entry.block.header.gasLimit,
    gasUsed: (b: BlockSrc) => b.entry.block.header.gasUsed,
    baseFeePerGas: (b: BlockSrc) => b.entry.block.header.baseFeePerGas ?? null,
    timestamp: (b: BlockSrc) => b.entry.block.header.timestamp,
    logsBloom: (b: BlockSrc) => bytesToHex(b.entry.block.header.logsBloom),
    mixHash: (b: BlockSrc) => bytesToHex(b.entry.block.header.mixHash),
    difficulty: (b: BlockSrc) => b.entry.block.header.difficulty,
    totalDifficulty: (b: BlockSrc) => b.entry.td,
    ommerCount: (b: BlockSrc) => BigInt(b.entry.block.uncleHeaders.length),
    ommers: (b: BlockSrc) => (b.entry.block.uncleHeaders.length === 0 ? [] : fail('Block.ommers not supported')),
    ommerAt: (b: BlockSrc) => (b.entry.block.uncleHeaders.length === 0 ? null : fail('Block.ommerAt not supported')),
    ommerHash: (b: BlockSrc) => bytesToHex(b.entry.block.header.uncleHash),
    transactionCount: (b: BlockSrc) => BigInt(b.entry.block.transactions.length),
    transactions: (b: BlockSrc) => b.entry.block.transactions.map((_, i) => txOfEntry(b.entry, i)!),
    transactionAt: (b: BlockSrc, a) => (a.index > BigInt(Number.MAX_SAFE_INTEGER) ? null : txOfEntry(b.entry, Number(a.index))),
    logs: async (b: BlockSrc, a) => (await api.logsOfBlockHash(b.entry, { addresses: addressesOf(a.filter.addresses), topics: topicsOf(a.filter.topics) })).map((log) => ({ log })),
    account: (b: BlockSrc, a) => account(a.address, b.entry),
    call: (b: BlockSrc, a) => rpc(() => (api.requireState(b.entry), simulateCall(api.simBlockOf(b.entry), a.data))),
    estimateGas: (b: BlockSrc, a) => estimate(a.data, '0x' + b.entry.number.toString(16)),
    rawHeader: notSupported('Block', 'rawHeader'),
    raw: notSupported('Block', 'raw'),
  };

  const Account: Record<string, Resolver> = {
    address: (a: AccountSrc) => a.address,
    balance: (a: AccountSrc) => rpc(async () => (await api.account(a.entry, a.address))?.balance ?? 0n),
    transactionCount: (a: AccountSrc) => rpc(async () => (await api.account(a.entry, a.address))?.nonce ?? 0n),
    code: (a: AccountSrc) => rpc(async () => bytesToHex(await api.code(a.entry, a.address))),
    storage: (a: AccountSrc, args) =>
      rpc(async () => {
        const v = await api.storage(a.entry, a.address, BigInt(args.slot));
        const padded = new Uint8Array(32);
        padded.set(v.slice(-32), 32 - Math.min(32, v.length));
        return bytesToHex(padded);
      }),
  };

  const Transaction: Record<string, Resolver> = {
    hash: (t: TxSrc) => t.hash,
    nonce: (t: TxSrc) => t.tx.nonce,
    index: (t: TxSrc) => (t.index === undefined ? null : BigInt(t.index)),
    from: (t: TxSrc, a) => account(addr(t.tx.getSenderAddress())!, a.block != null ? blockAt(a.block) : (t.entry ?? api.head())),
    to: (t: TxSrc, a) => {
      const to = addr(t.tx.to);
      return to ? account(to, a.block != null ? blockAt(a.block) : (t.entry ?? api.head())) : null;
    },
    value: (t: TxSrc) => t.tx.value,
    gasPrice: (t: TxSrc) =>
      is1559(t.tx) ? (t.entry ? effectiveGasPrice(t.tx, t.entry.block.header.baseFeePerGas) : txFields(t.tx).maxFeePerGas) : txFields(t.tx).gasPrice,
    maxFeePerGas: (t: TxSrc) => (is1559(t.tx) ? txFields(t.tx).maxFeePerGas : null),
    maxPriorityFeePerGas: (t: TxSrc) => (is1559(t.tx) ? txFields(t.tx).maxPriorityFeePerGas : null),
    maxFeePerBlobGas: (t: TxSrc) => txFields(t.tx).maxFeePerBlobGas ?? null,
    effectiveTip: notSupported('Transaction', 'effectiveTip'),
    gas: (t: TxSrc) => t.tx.gasLimit,
    inputData: (t: TxSrc) => bytesToHex(t.tx.data),
    block: (t: TxSrc) => (t.entry ? { entry: t.entry } : null),
    status: async (t: TxSrc) => {
      const r = await receipt(t);
      return r?.status === undefined ? null : BigInt(r.status);
    },
    gasUsed: async (t: TxSrc) => (await receipt(t))?.gasUsed ?? null,
    cumulativeGasUsed: async (t: TxSrc) => (await receipt(t))?.cumulativeGasUsed ?? null,
    effectiveGasPrice: async (t: TxSrc) => (await receipt(t))?.effectiveGasPrice ?? null,
    createdContract: async (t: TxSrc, a) => {
      const c = (await receipt(t))?.contractAddress;
      return c ? account(c, a.block != null ? blockAt(a.block) : t.entry!) : null;
    },
    logs: async (t: TxSrc) => {
      const r = await receipt(t);
      return r ? r.logs.map((log) => ({ log })) : null;
    },
    r: (t: TxSrc) => t.tx.r ?? fail('unsigned transaction'),
    s: (t: TxSrc) => t.tx.s ?? fail('unsigned transaction'),
    v: (t: TxSrc) => t.tx.v ?? fail('unsigned transaction'),
    yParity: (t: TxSrc) => (t.tx.type === 0 ? null : (t.tx.v ?? null)),
    type: (t: TxSrc) => BigInt(t.tx.type),
    accessList: notSupported('Transaction', 'accessList'),
    raw: notSupported('Transaction', 'raw'),
    rawReceipt: notSupported('Transaction', 'rawReceipt'),
    blobVersionedHashes: notSupported('Transaction', 'blobVersionedHashes'),
  };

  const Log: Record<string, Resolver> = {
    index: (l: LogSrc) => BigInt(l.log.logIndex),
    account: (l: LogSrc, a) => account(l.log.address, a.block != null ? blockAt(a.block) : api.head()),
    topics: (l: LogSrc) => l.log.topics.map((t) => bytesToHex(t)),
    data: (l: LogSrc) => bytesToHex(l.log.data),
    transaction: (l: LogSrc) => {
      const m = api.minedTransaction(l.log.transactionHash);
      return m ? { tx: m.tx, hash: l.log.transactionHash, entry: m.entry, index: m.index } : fail('Transaction not found');
    },
  };

  const Pending: Record<string, Resolver> = {
    transactionCount: () => BigInt(api.poolTransactions().length),
    transactions: () => api.poolTransactions().map(({ tx, hash }) => ({ tx, hash })),
    account: (_p, a) => account(a.address, api.head()),
    call: (_p, a) => rpc(() => simulateCall(api.pendingSimBlock(), a.data)),
    estimateGas: (_p, a) => estimate(a.data, 'pending'),
  };

  const Query: Record<string, Resolver> = {
    block: (_r, a) => {
      if (a.number != null && a.hash != null) fail('Invalid params');
      if (a.hash != null) {
        const entry = api.byHash(a.hash);
        return entry ? { entry } : null;
      }
      if (a.number == null) return { entry: api.head() };
      const entry = a.number > BigInt(api.headNumber()) ? undefined : api.byNumber(a.number);
      return entry ? { entry } : null;
    },
    blocks: (_r, a) => {
      const head = BigInt(api.headNumber());
      const from: bigint = a.from ?? head;
      const to: bigint = a.to ?? head;
      if (from > to) fail('Invalid params');
      const out: BlockSrc[] = [];
      for (let n = from; n <= to && n <= head; n++) out.push({ entry: api.byNumber(n)! });
      return out;
    },
    pending: () => ({}),
    transaction: (_r, a) => {
      const found = api.findTransaction(a.hash);
      if (!found) return null;
      return found.kind === 'mined' ? { tx: found.tx, hash: a.hash, entry: found.entry, index: found.index } : { tx: found.tx, hash: a.hash };
    },
    logs: async (_r, a) => {
      const head = BigInt(api.headNumber());
      const from: bigint = a.filter.fromBlock ?? head;
      const to: bigint = a.filter.toBlock ?? head;
      if (from > to) fail('Invalid params');
      if (api.maxLogsRange > 0 && to - from > BigInt(api.maxLogsRange)) fail('Requested range exceeds maximum range limit');
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
    protocolVersion: notSupported('Query', 'protocolVersion'),
  };

  const Mutation: Record<string, Resolver> = {
    sendRawTransaction: (_r, a) => rpc(() => api.sendRawTransaction(hexToBytes(a.data))),
  };

  const SyncState: Record<string, Resolver> = {
    startingBlock: (s) => s.startingBlock,
    currentBlock: (s) => s.currentBlock,
    highestBlock: (s) => s.highestBlock,
  };
  const CallResult: Record<string, Resolver> = { data: (c) => c.data, gasUsed: (c) => c.gasUsed, status: (c) => c.status };
  return { Block, Account, Transaction, Log, Pending, Query, Mutation, SyncState, CallResult };
}

// ---- HTTP -------------------------------------------------------------------------------------

function respond(status: number, payload: unknown): GraphqlResponse {
  return { status, body: JSON.stringify(payload), contentType: JSON_TYPE };
}

export function createGraphqlHandler(api: NodeApi, opts: GraphqlHandlerOptions = {}): (request: GraphqlRequest) => Promise<GraphqlResponse> {
  const schema = buildEthSchema();
  const resolvers = buildResolvers(api);
  const maxComplexity = opts.maxQueryComplexity ?? 200;
  const fieldResolver: GraphQLFieldResolver<unknown, unknown> = (source, args, _ctx, info) => {
    if (info.fieldName === '__typename') return info.parentType.name;
    const r = resolvers[info.parentType.name]?.[info.fieldName];
    if (!r) return fail(`${info.parentType.name}.${info.fieldName} not supported`);
    return r(source, args, info);
  };

  return async (request) => {
    let query: string;
    let operationName: string | null = null;
    let variables: Record<string, unknown> = {};
    try {
      if (request.method === 'GET') {
        query = request.query?.query ?? '';
        operationName = request.query?.operationName ?? null;
        if (request.query?.variables !== undefined) variables = JSON.parse(request.query.variables) ?? {};
      } else if (request.method === 'POST') {
        const body = (request.body ?? '').trim();
        if ((request.contentType ?? '').split(';')[0].trim().toLowerCase() === 'application/json') {
          const json = JSON.parse(body);
          if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new SyntaxError('Invalid JSON request');
          query = typeof json.query === 'string' ? json.query : '';
          operationName = typeof json.operationName === 'string' ? json.operationName : null;
          variables = json.variables && typeof json.variables === 'object' ? json.variables : {};
        } else query = body;
      } else {
        return { status: 405, body: '', contentType: JSON_TYPE };
      }
    } catch (e) {
      return respond(400, { errors: [{ message: (e as Error).message }] });
    }

    let doc: DocumentNode;
    try {
      doc = parse(query);
    } catch (e) {
      return respond(400, { errors: [(e as GraphQLError).toJSON()] });
    }
    const invalid = validate(schema, doc);
    if (invalid.length > 0) return respond(400, { errors: invalid.map((e) => e.toJSON()) });
    const complexity = queryComplexity(doc, operationName);
    if (complexity > maxComplexity) return respond(400, { errors: [{ message: `maximum query complexity exceeded ${complexity} > ${maxComplexity}` }] });

    try {
      const result = await execute({ schema, document: doc, rootValue: {}, variableValues: variables, operationName, fieldResolver });
      const out: Record<string, unknown> = {};
      if (result.errors && result.errors.length > 0) out.errors = result.errors.map((e) => e.toJSON());
      if (result.data !== undefined) out.data = result.data;
      return respond(out.errors ? 400 : 200, out);
    } catch (e) {
      return respond(500, { errors: [{ message: (e as Error).message }] });
    }
  };
}

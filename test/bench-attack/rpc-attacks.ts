/** The JSON-RPC and GraphQL attacks: expensive requests sent to node 0 (and node 1) by a few clients. */
import { BESU_TEST_ACCOUNTS, deterministicKey } from '../../sim/keys.ts';
import { loopUntil, Tally, type Attack, type AttackContext, type AttackResult, type Figures } from './attack.ts';
import { graphqlGet, graphqlPost, hexQuantity, isAbort, rpc, rpcBatch, RpcErrorAnswer, type GraphqlAnswer, type RpcAnswer, type RpcCall } from './rpc.ts';
import { commonOf, nonceOf, signTransfer } from './transactions.ts';
import { withDeadline } from './time.ts';

/** Initcode JUMPDEST PUSH1 0 JUMP: a contract-creation call that loops until the gas cap runs out. */
const INFINITE_LOOP_INITCODE = '0x5b600056';
const TRACE_BATCH_SIZE = 1024;
const TRACE_CLIENT_GIVES_UP_MS = 3_000;
const TRACE_FILTER_CLIENTS = 4;
/** Below --rpc-max-trace-filter-range (1000), leaving room for the blocks made during the window. */
const TRACE_FILTER_SPAN_BLOCKS = 900;
const GRAPHQL_CLIENTS = 3;
const REQUEST_TIMEOUT_MS = 10_000;
const FOREIGN_ORIGIN = 'http://attacker.example';

function summarizeBatch(answers: RpcAnswer[]): Figures {
  const errors = answers.filter((a) => a.error);
  return { answers: answers.length, errorAnswers: errors.length, ...(errors[0] ? { firstError: errors[0].error!.message.slice(0, 120) } : {}) };
}

/** One batch to one node, given up when the window ends; what came back and when. */
async function sendBatchUntilWindowEnds(port: number, calls: RpcCall[], signal: AbortSignal): Promise<Figures> {
  const startMs = Date.now();
  try {
    const answers = await rpcBatch(port, calls, signal);
    return { answeredAfterS: +((Date.now() - startMs) / 1000).toFixed(1), ...summarizeBatch(answers) };
  } catch (err) {
    return { answeredAfterS: isAbort(err) ? 'never (client gave up at window end)' : `never (${String((err as Error).message).slice(0, 80)})` };
  }
}

function loopCalls(count: number): RpcCall[] {
  return Array.from({ length: count }, () => ({ method: 'eth_call', params: [{ data: INFINITE_LOOP_INITCODE }, 'latest'] }));
}

/** A batch of `batchSize` looping eth_calls to each of `nodeIndexes`, each batch sent once. */
function ethCallLoop(name: string, batchSize: number, nodeIndexes: number[]): Attack {
  return {
    name,
    description: `one batch of ${batchSize} eth_call (infinite-loop initcode, gas omitted so the gas cap applies) to ${nodeIndexes.map((i) => `v${i}`).join(' and ')}`,
    measured: true,
    async run(ctx) {
      const perNode = await Promise.all(nodeIndexes.map((i) => sendBatchUntilWindowEnds(ctx.net.nodes[i]!.httpPort, loopCalls(batchSize), ctx.signal)));
      const figures: Figures = {};
      perNode.forEach((f, k) => Object.entries(f).forEach(([key, v]) => (figures[`v${nodeIndexes[k]}.${key}`] = v)));
      return { figures };
    },
  };
}

function traceBlockCalls(blocks: number[]): RpcCall[] {
  return Array.from({ length: TRACE_BATCH_SIZE }, (_, i) => ({ method: 'trace_block', params: [hexQuantity(blocks[i % blocks.length]!)] }));
}

const traceBlockBatch: Attack = {
  name: 'trace-block-batch',
  description: `one batch of ${TRACE_BATCH_SIZE} trace_block (blocks with transfers) to v0, the client giving up after ${TRACE_CLIENT_GIVES_UP_MS / 1000} s`,
  measured: true,
  async run(ctx): Promise<AttackResult> {
    const blocks = ctx.blocksWithTxs.length > 0 ? ctx.blocksWithTxs : [1];
    const startMs = Date.now();
    try {
      const answers = await withDeadline(TRACE_CLIENT_GIVES_UP_MS, ctx.signal, (signal) => rpcBatch(ctx.target.httpPort, traceBlockCalls(blocks), signal));
      return { figures: { tracedBlocks: blocks.length, answeredAfterS: +((Date.now() - startMs) / 1000).toFixed(1), ...summarizeBatch(answers) } };
    } catch (err) {
      const why = isAbort(err) ? 'client gave up' : String((err as Error).message).slice(0, 80);
      return { figures: { tracedBlocks: blocks.length, answered: `no (${why} after ${((Date.now() - startMs) / 1000).toFixed(1)} s)` } };
    }
  },
};

async function timedRpc(tally: Tally, port: number, method: string, params: unknown[], windowSignal: AbortSignal): Promise<unknown> {
  const startMs = Date.now();
  try {
    const result = await withDeadline(REQUEST_TIMEOUT_MS, windowSignal, (signal) => rpc(port, method, params, signal));
    tally.answer(Date.now() - startMs);
    return result;
  } catch (err) {
    if (err instanceof RpcErrorAnswer) tally.error(err.message);
    else tally.failure(err);
    return undefined;
  }
}

const traceFilter: Attack = {
  name: 'trace-filter',
  description: `${TRACE_FILTER_CLIENTS} clients calling trace_filter over up to ${TRACE_FILTER_SPAN_BLOCKS} blocks (the whole chain) to v0 in a loop`,
  measured: true,
  async run(ctx) {
    const head = Number(BigInt(await rpc(ctx.net.nodes[3]!.httpPort, 'eth_blockNumber')));
    const filter = { fromBlock: hexQuantity(Math.max(0, head - TRACE_FILTER_SPAN_BLOCKS)), toBlock: 'latest' };
    const tally = new Tally();
    const client = () => loopUntil(ctx.signal, async () => void (await timedRpc(tally, ctx.target.httpPort, 'trace_filter', [filter], ctx.signal)));
    await Promise.all(Array.from({ length: TRACE_FILTER_CLIENTS }, client));
    return { figures: { spanBlocks: head - Math.max(0, head - TRACE_FILTER_SPAN_BLOCKS), ...tally.figures() } };
  },
};

function wideQuery(account: string): string {
  const tx = 'hash nonce value gas status gasUsed from { address balance transactionCount } to { address balance } logs { data topics }';
  return `{ blocks(from: 0) { number hash gasUsed transactionCount transactions { ${tx} } logs(filter: {}) { data topics } account(address: "${account}") { balance transactionCount } } }`;
}

async function timedGraphql(tally: Tally, port: number, query: string, windowSignal: AbortSignal): Promise<void> {
  const startMs = Date.now();
  try {
    const answer = await withDeadline(REQUEST_TIMEOUT_MS, windowSignal, (signal) => graphqlPost(port, query, signal));
    if (answer.status === 200) tally.answer(Date.now() - startMs);
    else tally.error(`HTTP ${answer.status} ${answer.body.slice(0, 100)}`);
  } catch (err) {
    tally.failure(err);
  }
}

const graphqlWide: Attack = {
  name: 'graphql-wide',
  description: `${GRAPHQL_CLIENTS} clients sending blocks(from: 0) { transactions { ... } logs ... } to v0's GraphQL in a loop`,
  measured: true,
  async run(ctx) {
    const tally = new Tally();
    const query = wideQuery(BESU_TEST_ACCOUNTS[0]!.address);
    const client = () => loopUntil(ctx.signal, () => timedGraphql(tally, ctx.target.graphqlPort, query, ctx.signal));
    await Promise.all(Array.from({ length: GRAPHQL_CLIENTS }, client));
    return { figures: tally.figures() };
  },
};

function mutation(raw: string): string {
  return `mutation { sendRawTransaction(data: "${raw}") }`;
}

/** Whether the node took the transaction: a 200 whose data holds the transaction hash. */
function accepted(answer: GraphqlAnswer): boolean {
  try {
    return answer.status === 200 && typeof JSON.parse(answer.body)?.data?.sendRawTransaction === 'string';
  } catch {
    return false;
  }
}

function describeAnswer(answer: GraphqlAnswer | Error): string {
  if (answer instanceof Error) return `request failed (${answer.message.slice(0, 60)})`;
  return `HTTP ${answer.status}, ${accepted(answer) ? 'ACCEPTED (transaction pooled)' : `refused: ${answer.body.replace(/\s+/g, ' ').slice(0, 90)}`}`;
}

/** A fresh signed transfer from development account `index`, at its pending nonce. */
async function freshTransfer(ctx: AttackContext, index: number): Promise<string> {
  const account = BESU_TEST_ACCOUNTS[index]!;
  const nonce = await nonceOf(ctx.net.nodes[3]!.httpPort, account.address, 'pending');
  return signTransfer(commonOf(ctx.genesisFile), account, nonce, deterministicKey('bench-attack-origin', index).address, 1n);
}

const graphqlOrigin: Attack = {
  name: 'graphql-origin',
  description: `GraphQL sendRawTransaction mutation to v0 with Origin: ${FOREIGN_ORIGIN}, over GET and over POST`,
  measured: false,
  async run(ctx): Promise<AttackResult> {
    const headers = { origin: FOREIGN_ORIGIN };
    const getRaw = await freshTransfer(ctx, 1);
    const postRaw = await freshTransfer(ctx, 2);
    const get = await withDeadline(REQUEST_TIMEOUT_MS, ctx.signal, (s) => graphqlGet(ctx.target.graphqlPort, mutation(getRaw), s, headers)).catch((e: Error) => e);
    const post = await withDeadline(REQUEST_TIMEOUT_MS, ctx.signal, (s) => graphqlPost(ctx.target.graphqlPort, mutation(postRaw), s, headers)).catch((e: Error) => e);
    const refused = [get, post].every((a) => a instanceof Error || !accepted(a));
    return {
      figures: { GET: describeAnswer(get), POST: describeAnswer(post) },
      verdict: { pass: refused, text: refused ? 'both refused' : 'a foreign-origin mutation was accepted' },
    };
  },
};

export const RPC_ATTACKS: Attack[] = [ethCallLoop('eth-call-loop', 60, [0]), ethCallLoop('eth-call-loop-2nodes', 25, [0, 1]), traceBlockBatch, traceFilter, graphqlWide];
export const ORIGIN_CHECK: Attack = graphqlOrigin;

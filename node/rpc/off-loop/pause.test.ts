import test from 'ava';
import { createGraphqlHandler } from '../graphql/handler.ts';
import { allMethods } from '../methods/index.ts';
import { call, startCluster, type Cluster } from '../methods/test-kit.ts';
import { NodeApi } from '../node-api.ts';
import { livePause } from '../../runtime/live-pause.ts';
import { withRequestSignal } from './request-budget.ts';
import { NEVER_PAUSE, type Pause } from './pause.ts';

let cluster: Cluster;
test.before(async () => {
  cluster = await startCluster();
});

const WIDE = '{ blocks(from: 0) { number hash transactions { hash from { address balance } logs { data topics } } logs(filter: {}) { data } } }';

/** Whether a timer set when the query starts fires before the query is answered. */
async function timerFiresDuring(pause: Pause): Promise<boolean> {
  const handle = createGraphqlHandler(new NodeApi(cluster.node, { pause }));
  let fired = false;
  const timer = new Promise<void>((resolve) => setTimeout(() => ((fired = true), resolve()), 0));
  const answer = await handle({ method: 'POST', contentType: 'application/json', body: JSON.stringify({ query: WIDE }) });
  const firedBefore = fired;
  await timer;
  if (answer.status !== 200 || JSON.parse(answer.body).errors) throw new Error(answer.body);
  return firedBefore;
}

test('a wide GraphQL query lets the event loop turn while it runs; without a pause it holds the loop to the end', async (t) => {
  t.true(await timerFiresDuring(livePause(0)));
  t.false(await timerFiresDuring(NEVER_PAUSE), 'the planted defect: no pause, the timer waits for the whole query');
});

test('reads stop at their next check point once their request is given up', async (t) => {
  const api = new NodeApi(cluster.node, { pause: NEVER_PAUSE });
  const controller = new AbortController();
  controller.abort(new Error('Timeout expired'));
  const answer = await withRequestSignal(controller.signal, () => call(allMethods(api), 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]).catch((e: Error) => e));
  t.true(answer instanceof Error && answer.name === 'RequestAbandonedError' && answer.message === 'Timeout expired');
  const handle = createGraphqlHandler(api);
  const graphql = await withRequestSignal(controller.signal, () => handle({ method: 'POST', contentType: 'application/json', body: JSON.stringify({ query: WIDE }) }));
  t.regex(graphql.body, /Timeout expired/);
});

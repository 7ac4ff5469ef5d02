/**
 * ethereum/execution-apis' rpc-compat cases on their own chain (Frontier to bpo2, imported with
 * `blocks import`): pass count and every failure's reason are printed; the floor only goes up.
 */
import test from 'ava';
import { formatIoResults, judgeIoCase, loadIoCases, runIoCases, startHiveChainNode } from './conformance/execution-apis.ts';

const FLOOR = 197;

test('execution-apis rpc-compat cases pass on the imported hive chain', async (t) => {
  const live = await startHiveChainNode();
  try {
    const results = await runIoCases(live.servers.httpPort!);
    t.log(formatIoResults(results));
    t.is(results.length, 228);
    t.true(results.filter((r) => r.pass).length >= FLOOR);
    for (const name of ['eth_config/get-config', 'eth_blobBaseFee/get-current-blobfee', 'eth_getBlockByNumber/get-latest', 'eth_sendRawTransaction/send-legacy-transaction', 'debug_getRawHeader/get-block-n', 'debug_getRawBlock/get-genesis', 'debug_getRawReceipts/get-block-n', 'debug_getRawTransaction/get-tx', 'debug_traceTransaction/trace-contract-call', 'debug_traceBlockByNumber/trace-block-with-transactions', 'eth_simulateV1/ethSimulate-simple', 'eth_simulateV1/ethSimulate-blockhash-complex', 'eth_simulateV1/ethSimulate-two-blocks-with-complete-eth-sends', 'eth_simulateV1/ethSimulate-empty-with-block-num-set-firstblock'])
      t.true(results.find((r) => r.name === name)?.pass, name);
  } finally {
    await live.close();
  }
});

test('the case judge fails a wrong result, a missing error and an error for a result', (t) => {
  const config = loadIoCases().find((c) => c.name === 'eth_config/get-config')!;
  const expected = config.response.result as { current: { forkId: string } };
  t.is(judgeIoCase(config, { result: expected }), undefined);
  t.regex(judgeIoCase(config, { result: { ...expected, current: { ...expected.current, forkId: '0x00000000' } } })!, /forkId/);
  t.regex(judgeIoCase(config, { error: { code: -32601 } })!, /error/);
  const failing = loadIoCases().find((c) => 'error' in c.response)!;
  t.regex(judgeIoCase(failing, { result: '0x1' })!, /expected an error/);
});

/** `npm run conformance`: Besu's spec cases and execution-apis' rpc-compat cases, with every failure's reason. */
import { formatResults, runEthCases, runGraphqlCases, startSpecNode } from './besu-spec.ts';
import { formatIoResults, runIoCases, startHiveChainNode } from './execution-apis.ts';

const suites = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['eth', 'graphql', 'execution-apis'];
const results = [];
for (const suite of suites.filter((s) => s !== 'execution-apis')) {
  const live = await startSpecNode();
  try {
    results.push(...(suite === 'eth' ? await runEthCases(live.servers.httpPort!) : await runGraphqlCases(live.graphqlPort!)));
  } finally {
    await live.close();
  }
}
process.stdout.write(formatResults(results) + '\n');
if (suites.includes('execution-apis')) {
  const live = await startHiveChainNode();
  try {
    process.stdout.write(formatIoResults(await runIoCases(live.servers.httpPort!)) + '\n');
  } finally {
    await live.close();
  }
}

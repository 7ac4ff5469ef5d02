/** `npm run conformance`: Besu's spec cases against the imported spec chain, with every failure's reason. */
import { formatResults, runEthCases, runGraphqlCases, startSpecNode } from './besu-spec.ts';

const suites = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['eth', 'graphql'];
const results = [];
for (const suite of suites) {
  const live = await startSpecNode();
  try {
    results.push(...(suite === 'eth' ? await runEthCases(live.servers.httpPort!) : await runGraphqlCases(live.graphqlPort!)));
  } finally {
    await live.close();
  }
}
process.stdout.write(formatResults(results) + '\n');

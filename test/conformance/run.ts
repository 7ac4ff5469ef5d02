/** `npm run conformance`: Besu's spec cases against the imported spec chain, with every failure's reason. */
import { formatResults, runEthCases, runGraphqlCases, startSpecNode } from './besu-spec.ts';

const live = await startSpecNode();
try {
  const results = [...(await runEthCases(live.servers.httpPort!)), ...(await runGraphqlCases(live.graphqlPort!))];
  process.stdout.write(formatResults(results) + '\n');
} finally {
  await live.close();
}

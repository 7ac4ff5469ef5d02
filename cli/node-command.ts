/** `qbft-lab node`: one live node with Besu's option names, serving until SIGINT or SIGTERM. */
import { parseNodeOptions } from '../node/cli/node-options.ts';
import { startLiveNode } from '../node/cli/live-node.ts';
import type { Io } from './main.ts';

/** The last line printed at start-up (`network` waits for it). */
export const NODE_STARTED_LINE = 'Node started; SIGINT or SIGTERM stops it.';

export async function nodeCommand(args: string[], io: Io): Promise<number> {
  const opts = parseNodeOptions(args);
  const live = await startLiveNode(opts, { rpc: { networkId: opts.networkId } });
  const { servers, node } = live;
  io.out(`qbft-lab node ${node.address} at height ${node.head().number}`);
  if (live.enode !== undefined) io.out(`  Enode URL      ${live.enode}`);
  if (servers.httpPort !== undefined) io.out(`  JSON-RPC HTTP  http://${opts.rpcHttp.host}:${servers.httpPort}`);
  if (servers.wsPort !== undefined) io.out(`  JSON-RPC WS    ws://${opts.rpcWs.host}:${servers.wsPort}`);
  if (servers.ipcPath !== undefined) io.out(`  JSON-RPC IPC   ${servers.ipcPath}`);
  if (live.graphqlPort !== undefined) io.out(`  GraphQL        http://${opts.graphql.host}:${live.graphqlPort}/graphql`);
  if (live.metricsPort !== undefined) io.out(`  Metrics        http://${opts.metrics.host}:${live.metricsPort}/metrics`);
  io.out(NODE_STARTED_LINE);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await live.close();
  return 0;
}

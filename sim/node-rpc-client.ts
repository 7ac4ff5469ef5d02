/**
 * JSON-RPC inside the simulator: each running node gets an in-process connection to its own
 * dispatcher (every API group enabled), and every call, answer and notification goes to the trace.
 */
import type { QbftNode } from '../node/node.ts';
import { Dispatcher } from '../node/rpc/dispatcher.ts';
import { createNodeRpc } from '../node/rpc/node-rpc.ts';
import { ALL_API_GROUPS, MethodRegistry } from '../node/rpc/registry.ts';
import { InProcessRpc } from '../node/rpc/transports/in-process.ts';
import type { InProcessRecord } from '../node/rpc/transports/in-process.ts';

const clients = new WeakMap<QbftNode, InProcessRpc>();

export function rpcClientFor(node: QbftNode, record: (event: InProcessRecord) => void): InProcessRpc {
  let client = clients.get(node);
  if (!client) {
    const rpc = createNodeRpc(node);
    const registry = new MethodRegistry();
    registry.registerAll(rpc.methods);
    const dispatcher = new Dispatcher({ registry, enabledApis: new Set(ALL_API_GROUPS), maxBatchSize: 1024, transport: 'in-process' });
    client = new InProcessRpc(dispatcher, { onRecord: (e) => record({ ...e }) });
    clients.set(node, client);
  }
  return client;
}

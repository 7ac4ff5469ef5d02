/** Everything a node serves over JSON-RPC: the methods of every group and the pub/sub manager. */
import { NodeApi, type NodeApiOptions, type RpcNode } from './node-api.ts';
import { allMethods } from './methods/index.ts';
import { privateConnectionClosed } from './methods/priv.ts';
import { SubscriptionManager } from './pubsub/subscriptions.ts';
import type { RpcMethodSpec } from './registry.ts';

export interface NodeRpc {
  api: NodeApi;
  methods: RpcMethodSpec[];
  /** A WebSocket or IPC connection closed: its subscriptions go with it. */
  connectionClosed(connectionId: string): void;
  close(): void;
}

export function createNodeRpc(node: RpcNode, opts: NodeApiOptions = {}): NodeRpc {
  const api = new NodeApi(node, opts);
  const subscriptions = new SubscriptionManager(api, () => node.random.next());
  return {
    api,
    methods: [...allMethods(api), ...subscriptions.methods()],
    connectionClosed: (id) => {
      subscriptions.connectionClosed(id);
      privateConnectionClosed(api, id);
    },
    close: () => subscriptions.close(),
  };
}

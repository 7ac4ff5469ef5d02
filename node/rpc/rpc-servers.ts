/**
 * Starts the JSON-RPC endpoints a node's options ask for: HTTP (with /liveness and /readiness),
 * WebSocket and IPC, each with its own dispatcher and enabled API groups, over one method registry.
 */
import { Dispatcher } from './dispatcher.ts';
import { parseApiList, type MethodRegistry } from './registry.ts';
import { startHttpRpc, type HealthSource, type HttpAuthHook } from './transports/http.ts';
import { startWsRpc } from './transports/ws.ts';
import { startIpcRpc } from './transports/ipc.ts';

/** Authentication of one endpoint: the hook checking tokens and serving /login, and the methods open to anyone. */
/**
 * Besu bounds batches on HTTP only (--rpc-http-max-batch-size, 1024). A WebSocket message (4 MiB)
 * or an IPC value (128 MiB) of empty objects would otherwise ask for millions of error replies, so
 * qbft-lab holds WebSocket and IPC batches to Besu's HTTP default too.
 */
const NON_HTTP_MAX_BATCH_SIZE = 1024;

export interface EndpointAuth {
  hook: HttpAuthHook;
  methodsNoAuth: string[];
}

export interface RpcServersOptions {
  registry: MethodRegistry;
  /** `timeoutMs`: a request's whole time (--Xhttp-timeout-seconds); `requestTimeoutMs`: a WebSocket request's (--Xws-timeout-seconds). */
  http?: { host: string; port: number; apis: string[]; corsOrigins: string[]; maxBatchSize: number; maxRequestBytes: number; maxActiveConnections: number; timeoutMs?: number; auth?: EndpointAuth };
  ws?: { host: string; port: number; apis: string[]; maxFrameSize: number; maxActiveConnections: number; requestTimeoutMs?: number; auth?: EndpointAuth };
  ipc?: { path: string; apis: string[] };
  hostAllowlist: string[];
  health: HealthSource;
  /** A connection (ws/ipc) closed: drop its subscriptions. */
  onConnectionClosed?: (connectionId: string) => void;
  onError?: (error: unknown) => void;
  /** A method failed with an internal error (answered -32603). */
  onInternalError?: (method: string, error: unknown) => void;
}

export interface RpcServers {
  httpPort?: number;
  wsPort?: number;
  ipcPath?: string;
  close(): Promise<void>;
}

export async function startRpcServers(o: RpcServersOptions): Promise<RpcServers> {
  const closers: Array<() => Promise<void>> = [];
  const servers: RpcServers = {
    close: async () => {
      for (const close of closers.reverse()) await close();
    },
  };
  try {
    if (o.http) {
      const { auth, ...http0 } = o.http;
      const dispatcher = new Dispatcher({
        registry: o.registry,
        enabledApis: new Set(parseApiList(o.http.apis, { option: '--rpc-http-api' })),
        maxBatchSize: o.http.maxBatchSize,
        transport: 'http',
        authEnabled: auth !== undefined,
        methodsNoAuth: new Set(auth?.methodsNoAuth ?? []),
        onInternalError: o.onInternalError,
      });
      const http = await startHttpRpc({ ...http0, dispatcher, hostAllowlist: o.hostAllowlist, health: o.health, auth: auth?.hook, onError: o.onError });
      closers.push(() => http.close());
      servers.httpPort = http.port;
    }
    if (o.ws) {
      const { auth, ...ws0 } = o.ws;
      const dispatcher = new Dispatcher({
        registry: o.registry,
        enabledApis: new Set(parseApiList(o.ws.apis, { option: '--rpc-ws-api' })),
        maxBatchSize: NON_HTTP_MAX_BATCH_SIZE,
        transport: 'ws',
        authEnabled: auth !== undefined,
        methodsNoAuth: new Set(auth?.methodsNoAuth ?? []),
        onInternalError: o.onInternalError,
      });
      const ws = await startWsRpc({ ...ws0, dispatcher, hostAllowlist: o.hostAllowlist, auth: auth?.hook, onConnectionClosed: o.onConnectionClosed, onError: o.onError });
      closers.push(() => ws.close());
      servers.wsPort = ws.port;
    }
    if (o.ipc) {
      const dispatcher = new Dispatcher({ registry: o.registry, enabledApis: new Set(parseApiList(o.ipc.apis, { option: '--Xrpc-ipc-api' })), maxBatchSize: NON_HTTP_MAX_BATCH_SIZE, transport: 'ipc', onInternalError: o.onInternalError });
      const ipc = await startIpcRpc({ path: o.ipc.path, dispatcher, onConnectionClosed: o.onConnectionClosed, onError: o.onError });
      closers.push(() => ipc.close());
      servers.ipcPath = ipc.path;
    }
  } catch (err) {
    await servers.close();
    throw err;
  }
  return servers;
}

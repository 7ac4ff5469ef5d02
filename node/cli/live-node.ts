/**
 * A node on the real clock: LevelDB under --data-path, real timers, the JSON-RPC endpoints its
 * options enable. The consensus, chain and execution are the same code the simulator runs.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { bytesToHex, hexToBytes } from '../crypto/bytes.ts';
import type { Genesis, GenesisReading } from '../chain/genesis.ts';
import { checkedForStart } from '../chain/genesis-checks.ts';
import { readGenesisFile } from './genesis-file.ts';
import { createNode, type NodeConfig, type QbftNode } from '../node.ts';
import type { Log, Transport } from '../runtime/ports.ts';
import { LiveClock } from '../runtime/live-clock.ts';
import { LiveTimers } from '../runtime/live-timers.ts';
import { LiveRandom } from '../runtime/live-random.ts';
import { LevelStore } from '../runtime/live-store.ts';
import { LiveLog } from '../runtime/live-log.ts';
import { LoopbackNetwork } from '../runtime/live-loopback-network.ts';
import { MethodRegistry } from '../rpc/registry.ts';
import { createNodeRpc } from '../rpc/node-rpc.ts';
import { WorkerSimulator } from '../rpc/off-loop/worker-simulator.ts';
import { livePause } from '../runtime/live-pause.ts';
import { startRpcServers, type EndpointAuth, type RpcServers } from '../rpc/rpc-servers.ts';
import { liveness, readiness } from '../rpc/transports/health.ts';
import { startGraphqlHttp, type GraphqlHttpServer } from '../rpc/transports/graphql-http.ts';
import { createGraphqlHandler } from '../rpc/graphql/handler.ts';
import { startNodeMetricsServer } from '../metrics/node-metrics-server.ts';
import type { MetricsHttpServer } from '../metrics/metrics-http.ts';
import type { AuthSettings, NodeOptions } from './node-options.ts';
import { createAuthHook, type AuthOptions } from '../rpc/transports/authentication.ts';
import { asConfigError } from './config-error.ts';
import { RlpxTransport } from '../runtime/live-rlpx-transport.ts';
import { canonicalHashes, defaultClientVersion, type NodeApiOptions } from '../rpc/node-api.ts';
import { enodeUrl, parseEnodeUrl } from '../p2p/rlpx/enode.ts';
import { Discv4Discovery } from '../p2p/discovery/discovery.ts';
import { UsageError } from './usage-error.ts';
import { checkNodesAllowlisted, openLocalPermissioning } from './permissions-file.ts';
import { parseAllowlistEnode, type AllowlistEnode } from '../permissioning/allowlist-enode.ts';
import type { LocalPermissioning } from '../permissioning/local-permissioning.ts';
import { nodeIdFromPrivateKey } from '../p2p/rlpx/node-identity.ts';

export interface LiveNode {
  node: QbftNode;
  servers: RpcServers;
  graphqlPort?: number;
  /** The bound metrics port when --metrics-enabled. */
  metricsPort?: number;
  /** The enode URL when the node listens for RLPx peers. */
  enode?: string;
  close(): Promise<void>;
}

export interface LiveNodeExtras {
  name?: string;
  genesis?: Genesis;
  privateKey?: Uint8Array;
  /** The peer-to-peer transport; a node alone gets a loopback hub of its own. */
  transport?: Transport;
  /** Options of the JSON-RPC facade (network id and the like). */
  rpc?: NodeApiOptions;
  log?: Log;
  p2pEnabled?: boolean;
  /** Nodes in one process may share their state store and block outcomes (NodeConfig.sharedExecution). */
  sharedExecution?: NodeConfig['sharedExecution'];
}

/** Besu keeps the node key as hex in <data-path>/key and creates it on first start. */
export function loadOrCreateNodeKey(opts: NodeOptions): Uint8Array {
  const file = opts.nodePrivateKeyFile ?? join(opts.dataPath, 'key');
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8').trim();
    if (!/^(0x)?[0-9a-fA-F]{64}$/.test(text)) throw new UsageError(`${file} does not hold a 32-byte hex private key`);
    return hexToBytes(text);
  }
  if (opts.nodePrivateKeyFile) throw new UsageError(`--node-private-key-file: ${file} does not exist`);
  const key = new Uint8Array(randomBytes(32));
  mkdirSync(opts.dataPath, { recursive: true });
  writeFileSync(file, bytesToHex(key), { mode: 0o600 });
  return key;
}

async function endpointAuth(settings: AuthSettings): Promise<EndpointAuth | undefined> {
  if (!settings.enabled) return undefined;
  const hook = await createAuthHook({
    credentialsFile: settings.credentialsFile,
    jwtPublicKeyFile: settings.jwtPublicKeyFile,
    algorithm: settings.algorithm as AuthOptions['algorithm'],
    nowSeconds: () => Math.floor(Date.now() / 1000),
    methodsNoAuth: settings.methodsNoAuth,
    // Besu goes on without a user when a token does not verify; each method then answers -40100.
    invalidToken: 'empty',
  });
  return { hook, methodsNoAuth: settings.methodsNoAuth };
}

/** A node on the real clock and its LevelDB store, without any endpoint (`blocks import` uses it alone). */
export interface LiveNodeCore {
  node: QbftNode;
  log: Log;
  /** The RLPx transport when this node talks to other processes (--p2p-enabled, no transport given). */
  rlpx?: RlpxTransport;
  /** Stops the node and its timers and closes the store. */
  close(): Promise<void>;
}

export async function openLiveNodeCore(opts: NodeOptions, extras: LiveNodeExtras = {}): Promise<LiveNodeCore> {
  const context = { genesisFile: opts.genesisFile, dataPath: opts.dataPath };
  let reading: GenesisReading | undefined;
  try {
    reading = extras.genesis ? { genesis: extras.genesis, warnings: [] } : opts.genesisFile ? readGenesisFile(opts.genesisFile) : undefined;
    if (reading) reading = checkedForStart(reading);
  } catch (err) {
    throw asConfigError(err, context);
  }
  if (!reading) throw new UsageError('--genesis-file is required');
  const { genesis } = reading;
  try {
    mkdirSync(opts.dataPath, { recursive: true });
  } catch (err) {
    throw new UsageError(`--data-path ${opts.dataPath}: cannot create the directory (${(err as Error).message})`);
  }
  const privateKey = extras.privateKey ?? loadOrCreateNodeKey(opts);
  const p2pOverRlpx = !extras.transport && (extras.p2pEnabled ?? opts.p2p.enabled);
  const staticNodes = p2pOverRlpx ? readStaticNodes(opts.p2p.staticNodesFile) : [];
  const permissioning = opts.permissions ? openPermissioning(opts, privateKey, staticNodes) : undefined;
  let store: LevelStore;
  try {
    store = await LevelStore.open(join(opts.dataPath, 'database'));
  } catch (err) {
    throw asConfigError(err, context);
  }
  const log = extras.log ?? new LiveLog({ name: extras.name });
  for (const warning of reading.warnings) log.log('warn', warning);
  const timers = new LiveTimers({ onError: (err) => log.log('error', 'timer failed', { error: String(err) }) });
  let ownNetwork: LoopbackNetwork | undefined;
  let rlpx: RlpxTransport | undefined;
  let discovery: Discv4Discovery | undefined;
  let transport: Transport;
  if (extras.transport) transport = extras.transport;
  else if (p2pOverRlpx) {
    try {
      rlpx = new RlpxTransport({
        nodeKey: privateKey,
        listenHost: opts.p2p.interface,
        listenPort: opts.p2p.port,
        advertisedHost: opts.p2p.host,
        clientId: clientIdOf(extras.rpc),
        maxPeers: opts.p2p.maxPeers,
        maxRemotelyInitiatedPeers: opts.p2p.maxRemotelyInitiatedPeers,
        maintained: [...opts.p2p.bootnodes, ...staticNodes],
        nodePermissioning: permissioning?.nodes,
        privacy: opts.privacy !== undefined,
        log: (level, message, fields) => log.log(level, message, fields),
      });
      await rlpx.listen();
      if (opts.p2p.discoveryEnabled) discovery = await startDiscovery(opts, privateKey, rlpx, log);
    } catch (err) {
      await rlpx?.close();
      await store.close();
      throw asConfigError(err, context);
    }
    transport = rlpx;
  } else transport = (ownNetwork = new LoopbackNetwork()).attach(extras.name ?? 'node');
  let node: QbftNode;
  try {
    node = await createNode(
      {
        name: extras.name ?? 'node',
        genesis,
        privateKey,
        earlyRoundChange: opts.earlyRoundChange,
        minGasPrice: opts.minGasPrice,
        minerExtraData: opts.minerExtraData === undefined ? undefined : new TextEncoder().encode(opts.minerExtraData),
        sharedExecution: extras.sharedExecution,
        permissioning,
        privacy: opts.privacy,
      },
      { clock: new LiveClock(), timers, random: new LiveRandom(), transport, store, log },
    );
  } catch (err) {
    timers.cancelAll();
    ownNetwork?.close();
    await discovery?.close();
    await rlpx?.close();
    await store.close();
    throw asConfigError(err, context);
  }
  return {
    node,
    log,
    rlpx,
    async close() {
      node.stop();
      timers.cancelAll();
      ownNetwork?.close();
      await discovery?.close();
      await rlpx?.close();
      await store.close();
    },
  };
}

export async function startLiveNode(opts: NodeOptions, extras: LiveNodeExtras = {}): Promise<LiveNode> {
  const core = await openLiveNodeCore(opts, extras);
  const { node, log } = core;
  // The EVM work of RPC runs on worker threads, never on the event loop consensus runs on.
  const simulator = new WorkerSimulator({
    genesis: node.config.genesis,
    store: node.stateStore(),
    hashes: canonicalHashes(node),
    onWorkerError: (error) => log.log('error', 'RPC execution worker failed', { error: String(error) }),
  });
  const rpc = createNodeRpc(node, {
    simulator,
    pause: livePause(),
    gasCap: opts.rpcLimits.gasCap,
    maxLogsRange: opts.rpcLimits.maxLogsRange,
    maxTraceFilterRange: opts.rpcLimits.maxTraceFilterRange,
    ...extras.rpc,
    p2pEnabled: opts.p2p.enabled,
    ...(core.rlpx ? { p2pHost: opts.p2p.host, p2pPort: core.rlpx.port, peerDirectory: core.rlpx } : {}),
  });
  const registry = new MethodRegistry();
  registry.registerAll(rpc.methods);
  const p2pEnabled = extras.p2pEnabled ?? opts.p2p.enabled;
  let servers: RpcServers;
  try {
    servers = await startRpcServers({
      registry,
      http: opts.rpcHttp.enabled ? { ...opts.rpcHttp, timeoutMs: opts.rpcLimits.httpTimeoutMs, auth: await endpointAuth(opts.rpcHttp.auth) } : undefined,
      ws: opts.rpcWs.enabled ? { ...opts.rpcWs, requestTimeoutMs: opts.rpcLimits.wsTimeoutMs, auth: await endpointAuth(opts.rpcWs.auth) } : undefined,
      ipc: opts.ipc.enabled ? opts.ipc : undefined,
      hostAllowlist: opts.hostAllowlist,
      onConnectionClosed: (id) => rpc.connectionClosed(id),
      health: {
        liveness,
        readiness: (query) => {
          const status = node.syncStatus();
          const head = node.head().number;
          return readiness({
            peerCount: status.peers,
            p2pEnabled,
            syncing: status.syncing ? { current: head, highest: status.highestKnown } : undefined,
            minPeers: query.minPeers,
            maxBlocksBehind: query.maxBlocksBehind,
          });
        },
      },
      onError: (error) => log.log('error', 'JSON-RPC server error', { error: String(error) }),
      onInternalError: (method, error) => log.log('error', 'Error processing JSON-RPC request', { method, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    });
  } catch (err) {
    rpc.close();
    await simulator.close();
    await core.close();
    throw asConfigError(err);
  }
  let graphql: GraphqlHttpServer | undefined;
  if (opts.graphql.enabled) {
    try {
      graphql = await startGraphqlHttp({
        host: opts.graphql.host,
        port: opts.graphql.port,
        hostAllowlist: opts.hostAllowlist,
        corsOrigins: opts.graphql.corsOrigins,
        handle: createGraphqlHandler(rpc.api),
        onError: (error) => log.log('error', 'GraphQL server error', { error: String(error) }),
      });
    } catch (err) {
      await servers.close();
      rpc.close();
      await simulator.close();
      await core.close();
      throw asConfigError(err);
    }
  }
  let metrics: MetricsHttpServer | undefined;
  if (opts.metrics.enabled) {
    try {
      metrics = await startNodeMetricsServer(node, opts.metrics, opts.hostAllowlist, (error) => log.log('error', 'metrics error', { error: String(error) }));
    } catch (err) {
      await graphql?.close();
      await servers.close();
      rpc.close();
      await simulator.close();
      await core.close();
      throw asConfigError(err);
    }
  }
  return {
    node,
    servers,
    graphqlPort: graphql?.port,
    metricsPort: metrics?.port,
    enode: core.rlpx?.enode(),
    async close() {
      await metrics?.close();
      await graphql?.close();
      await servers.close();
      rpc.close();
      await simulator.close();
      await core.close();
    },
  };
}

function clientIdOf(rpc: NodeApiOptions | undefined): string {
  return rpc?.clientVersion ?? defaultClientVersion();
}

/** Besu's static-nodes.json: a JSON array of enode URLs; a missing file means none. */
export function readStaticNodes(file: string): string[] {
  if (!existsSync(file)) return [];
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--static-nodes-file ${file}: not valid JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new UsageError(`--static-nodes-file ${file}: expected a JSON array of enode URLs`);
  for (const url of value) {
    try {
      parseEnodeUrl(url);
    } catch (err) {
      throw new UsageError(`--static-nodes-file ${file}: ${(err as Error).message}`);
    }
  }
  return value;
}

/**
 * The node's local permissioning over its permissions file(s). Besu refuses to start when a static
 * node is not on an enabled nodes allowlist (bootnodes are checked with the options), and rewrites
 * the accounts file now (its start-up takes the file's accounts as through perm_addAccountsToAllowlist).
 */
function openPermissioning(opts: NodeOptions, privateKey: Uint8Array, staticNodes: readonly string[]): LocalPermissioning {
  const permissions = opts.permissions!;
  checkNodesAllowlisted(staticNodes, permissions.loaded);
  const fixedNodes: AllowlistEnode[] = [];
  for (const url of [...opts.p2p.bootnodes, ...staticNodes]) {
    try {
      fixedNodes.push(parseAllowlistEnode(url));
    } catch {
      // A host name: it can be on no allowlist, so there is nothing to protect from removal.
    }
  }
  try {
    return openLocalPermissioning(permissions.settings, permissions.loaded, { localNodeId: bytesToHex(nodeIdFromPrivateKey(privateKey)).slice(2), fixedNodes });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/**
 * discv4 on the RLPx port (UDP), with --bootnodes as its bootnodes: every node it bonds with is
 * dialled over RLPx (the transport keeps at most --max-peers).
 */
async function startDiscovery(opts: NodeOptions, privateKey: Uint8Array, rlpx: RlpxTransport, log: Log): Promise<Discv4Discovery> {
  const discovery = new Discv4Discovery({
    privateKey,
    bindHost: opts.p2p.interface,
    advertisedHost: opts.p2p.host,
    udpPort: rlpx.port,
    tcpPort: rlpx.port,
    bootnodes: opts.p2p.bootnodes,
    log,
    onNodeFound: (found) => rlpx.connectTo(enodeUrl(hexToBytes(`0x${found.id}`), found.host, found.tcpPort)),
  });
  try {
    await discovery.start();
  } catch (err) {
    await discovery.close().catch(() => undefined);
    throw new UsageError(`--p2p-port ${rlpx.port}: cannot start discovery on UDP (${(err as Error).message}); --discovery-enabled=false turns it off`);
  }
  return discovery;
}

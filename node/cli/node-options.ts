/**
 * The live node's options, with Besu's names and defaults (qbft-notes §10). Options come from the
 * command line and, with --config-file, from a TOML file whose keys are the option names without
 * the leading dashes; the command line wins.
 */
import { readFileSync, statSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { UsageError } from './usage-error.ts';
import { parseOptions } from './parse-options.ts';
import { parseEnodeUrl } from '../p2p/rlpx/enode.ts';
import { DEFAULT_REMOTE_CONNECTIONS_MAX_PERCENTAGE, maxRemotelyInitiatedPeers, PeerLimitError } from '../p2p/peer-limits.ts';
import { parseApiList } from '../rpc/registry.ts';
import { DEFAULT_CATEGORY_NAMES, parseMetricCategories } from '../metrics/categories.ts';
import { checkNodesAllowlisted, defaultPermissionsFile, loadAllowlists, type PermissionsSettings } from './permissions-file.ts';
import { PermissionsFileError } from '../permissioning/allowlist-toml.ts';
import type { LoadedAllowlists } from '../permissioning/local-permissioning.ts';
import { parsePrivacyPrivateKey, privacyPublicKeyText } from '../privacy/privacy-key-file.ts';

type Kind = 'string' | 'boolean' | 'int' | 'list';

interface OptionSpec {
  kind: Kind;
  default?: string | boolean | number | string[];
}

export const NODE_OPTIONS = {
  'genesis-file': { kind: 'string' },
  'data-path': { kind: 'string', default: './build/data' },
  'node-private-key-file': { kind: 'string' },
  'network-id': { kind: 'string' },
  'min-gas-price': { kind: 'string', default: '1000' },
  'miner-extra-data': { kind: 'string' },
  'config-file': { kind: 'string' },
  'rpc-http-enabled': { kind: 'boolean', default: false },
  'rpc-http-host': { kind: 'string', default: '127.0.0.1' },
  'rpc-http-port': { kind: 'int', default: 8545 },
  'rpc-http-api': { kind: 'list', default: ['ETH', 'NET', 'WEB3'] },
  'rpc-http-cors-origins': { kind: 'list', default: [] },
  'rpc-http-max-batch-size': { kind: 'int', default: 1024 },
  'rpc-http-max-request-content-length': { kind: 'int', default: 128 * 1024 * 1024 },
  'rpc-http-max-active-connections': { kind: 'int', default: 80 },
  // Besu's JSON-RPC limits shared by every transport.
  'rpc-gas-cap': { kind: 'string', default: '100000000' },
  'rpc-max-logs-range': { kind: 'int', default: 5000 },
  'rpc-max-trace-filter-range': { kind: 'int', default: 1000 },
  // Besu's hidden RPCOptions: a request's whole time (a batch's too), TimeoutOptions' 30 s
  'Xhttp-timeout-seconds': { kind: 'int', default: 30 },
  'Xws-timeout-seconds': { kind: 'int', default: 30 },
  'rpc-http-authentication-enabled': { kind: 'boolean', default: false },
  'rpc-http-authentication-credentials-file': { kind: 'string' },
  'rpc-http-authentication-jwt-public-key-file': { kind: 'string' },
  'rpc-http-authentication-jwt-algorithm': { kind: 'string', default: 'RS256' },
  'rpc-http-api-methods-no-auth': { kind: 'list', default: [] },
  'rpc-ws-enabled': { kind: 'boolean', default: false },
  'rpc-ws-host': { kind: 'string', default: '127.0.0.1' },
  'rpc-ws-port': { kind: 'int', default: 8546 },
  'rpc-ws-api': { kind: 'list', default: ['ETH', 'NET', 'WEB3'] },
  'rpc-ws-max-frame-size': { kind: 'int', default: 1024 * 1024 },
  'rpc-ws-max-active-connections': { kind: 'int', default: 80 },
  'rpc-ws-authentication-enabled': { kind: 'boolean', default: false },
  'rpc-ws-authentication-credentials-file': { kind: 'string' },
  'rpc-ws-authentication-jwt-public-key-file': { kind: 'string' },
  'rpc-ws-authentication-jwt-algorithm': { kind: 'string', default: 'RS256' },
  'rpc-ws-api-methods-no-auth': { kind: 'list', default: [] },
  'graphql-http-enabled': { kind: 'boolean', default: false },
  'graphql-http-host': { kind: 'string', default: '127.0.0.1' },
  'graphql-http-port': { kind: 'int', default: 8547 },
  'graphql-http-cors-origins': { kind: 'list', default: [] },
  'Xrpc-ipc-enabled': { kind: 'boolean', default: false },
  'Xrpc-ipc-path': { kind: 'string' },
  'Xrpc-ipc-api': { kind: 'list', default: ['ETH', 'NET', 'WEB3'] },
  'host-allowlist': { kind: 'list', default: ['localhost', '127.0.0.1'] },
  'Xqbft-enable-early-round-change': { kind: 'boolean', default: false },
  // Besu's MetricsOptions / MetricsConfiguration defaults.
  'metrics-enabled': { kind: 'boolean', default: false },
  'metrics-host': { kind: 'string', default: '127.0.0.1' },
  'metrics-port': { kind: 'int', default: 9545 },
  'metrics-category': { kind: 'list', default: [...DEFAULT_CATEGORY_NAMES] },
  // Besu's P2PDiscoveryOptions / NetworkingConfiguration defaults.
  'p2p-enabled': { kind: 'boolean', default: true },
  'p2p-host': { kind: 'string', default: '127.0.0.1' },
  'p2p-interface': { kind: 'string', default: '0.0.0.0' },
  'p2p-port': { kind: 'int', default: 30303 },
  bootnodes: { kind: 'list', default: [] },
  'static-nodes-file': { kind: 'string' },
  'max-peers': { kind: 'int', default: 25 },
  'remote-connections-limit-enabled': { kind: 'boolean', default: true },
  'remote-connections-max-percentage': { kind: 'int', default: DEFAULT_REMOTE_CONNECTIONS_MAX_PERCENTAGE },
  'discovery-enabled': { kind: 'boolean', default: true },
  // Besu's PermissionsOptions (local permissioning); the files default to permissions_config.toml in the data path.
  'permissions-nodes-config-file-enabled': { kind: 'boolean', default: false },
  'permissions-nodes-config-file': { kind: 'string' },
  'permissions-accounts-config-file-enabled': { kind: 'boolean', default: false },
  'permissions-accounts-config-file': { kind: 'string' },
  // Besu 25.4's privacy options, with the private transaction manager inside the node.
  'privacy-enabled': { kind: 'boolean', default: false },
  'privacy-public-key-file': { kind: 'string' },
  // qbft-lab's: the manager runs inside the node, so it needs the private half Tessera kept.
  'privacy-private-key-file': { kind: 'string' },
  'privacy-marker-transaction-signing-key-file': { kind: 'string' },
  'privacy-url': { kind: 'string' },
  profile: { kind: 'string' },
} satisfies Record<string, OptionSpec>;

export type NodeOptionName = keyof typeof NODE_OPTIONS;

export interface AuthSettings {
  enabled: boolean;
  credentialsFile?: string;
  jwtPublicKeyFile?: string;
  algorithm: string;
  methodsNoAuth: string[];
}

export interface NodeOptions {
  genesisFile?: string;
  dataPath: string;
  nodePrivateKeyFile?: string;
  networkId?: bigint;
  minGasPrice: bigint;
  minerExtraData?: string;
  rpcHttp: { enabled: boolean; host: string; port: number; apis: string[]; corsOrigins: string[]; maxBatchSize: number; maxRequestBytes: number; maxActiveConnections: number; auth: AuthSettings };
  rpcWs: { enabled: boolean; host: string; port: number; apis: string[]; maxFrameSize: number; maxActiveConnections: number; auth: AuthSettings };
  ipc: { enabled: boolean; path: string; apis: string[] };
  graphql: { enabled: boolean; host: string; port: number; corsOrigins: string[] };
  /** `categories`: enabled metric category names, lower case. */
  metrics: { enabled: boolean; host: string; port: number; categories: Set<string> };
  hostAllowlist: string[];
  earlyRoundChange: boolean;
  p2p: P2pOptions;
  /** Local permissioning, when --permissions-nodes-config-file-enabled or --permissions-accounts-config-file-enabled. */
  permissions?: PermissionsOptions;
  /** Privacy with the embedded private transaction manager (--privacy-enabled). */
  privacy?: { publicKey: string; privateKey: Uint8Array; markerSigningKey?: Uint8Array };
  /** --rpc-gas-cap, --rpc-max-logs-range, --rpc-max-trace-filter-range (0: no limit for the ranges). */
  rpcLimits: { gasCap: bigint; maxLogsRange: number; maxTraceFilterRange: number; httpTimeoutMs: number; wsTimeoutMs: number };
  /** The --profile given (upper case), if any. */
  profile?: ProfileName;
}

export interface P2pOptions {
  enabled: boolean;
  /** Advertised in the enode URL. */
  host: string;
  /** Listened on. */
  interface: string;
  port: number;
  bootnodes: string[];
  /** --static-nodes-file, else <data-path>/static-nodes.json (read when present). */
  staticNodesFile: string;
  maxPeers: number;
  /** How many of maxPeers inbound connections may hold (--remote-connections-limit-enabled, --remote-connections-max-percentage). */
  maxRemotelyInitiatedPeers: number;
  discoveryEnabled: boolean;
}

export interface PermissionsOptions {
  settings: PermissionsSettings;
  /** The enabled lists as read at start-up. */
  loaded: LoadedAllowlists;
}

type Raw = Partial<Record<NodeOptionName, string | boolean | number | string[]>>;

function coerce(name: NodeOptionName, value: unknown, source: string): string | boolean | number | string[] {
  const spec: OptionSpec = NODE_OPTIONS[name];
  const bad = (what: string): never => {
    throw new UsageError(`Invalid value for option '--${name}'${source}: ${what}`);
  };
  switch (spec.kind) {
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      return bad(`'${String(value)}' is not a boolean`);
    case 'int': {
      const n = typeof value === 'number' ? value : Number(value);
      if (!Number.isInteger(n) || n < 0 || n > 2 ** 31) return bad(`'${String(value)}' is not a valid integer`);
      return n;
    }
    case 'list':
      if (Array.isArray(value)) return value.map(String);
      if (typeof value === 'string') return value.split(',').map((v) => v.trim()).filter((v) => v !== '');
      return bad(`'${String(value)}' is not a list`);
    case 'string':
      if (typeof value !== 'string' && typeof value !== 'number') return bad(`'${String(value)}' is not a string`);
      return String(value);
  }
}

function fromConfigFile(path: string): Raw {
  let table: Record<string, unknown>;
  try {
    table = parseToml(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new UsageError(`Unable to read TOML configuration file ${path}: ${(err as Error).message}`);
  }
  const raw: Raw = {};
  for (const [key, value] of Object.entries(table)) {
    if (!(key in NODE_OPTIONS)) throw new UsageError(`Unknown option in TOML configuration file: ${key}`);
    raw[key as NodeOptionName] = coerce(key as NodeOptionName, value, ` in ${path}`);
  }
  return raw;
}

/** The options given on the command line, coerced; `--flag=false` gives false. */
function commandLineValues(argv: string[]): Raw {
  const options = Object.fromEntries(
    Object.entries(NODE_OPTIONS).map(([name, spec]) => [name, { type: spec.kind === 'boolean' ? ('boolean' as const) : ('string' as const) }]),
  );
  const explicitlyFalse: string[] = [];
  // Besu also accepts `--flag=value` and `--flag value` for booleans: '--rpc-http-enabled=true'.
  const normalized = argv.flatMap((a) => {
    const m = /^--([\w-]+)=(true|false)$/.exec(a);
    if (m && (NODE_OPTIONS as Record<string, OptionSpec>)[m[1]]?.kind === 'boolean') {
      if (m[2] === 'true') return [`--${m[1]}`];
      explicitlyFalse.push(m[1]);
      return [];
    }
    return [a];
  });
  const { values } = parseOptions(normalized, options, { positionals: false });
  const cli: Raw = {};
  for (const [name, value] of Object.entries(values)) cli[name as NodeOptionName] = coerce(name as NodeOptionName, value, '');
  for (const name of explicitlyFalse) cli[name as NodeOptionName] = false;
  return cli;
}

type OptionGetter = <T>(name: NodeOptionName) => T;

/** The authentication settings of the HTTP or WebSocket endpoint, checked as Besu checks them. */
function authSettings(get: OptionGetter, prefix: 'rpc-http' | 'rpc-ws'): AuthSettings {
  const settings: AuthSettings = {
    enabled: get<boolean>(`${prefix}-authentication-enabled` as NodeOptionName),
    credentialsFile: get<string | undefined>(`${prefix}-authentication-credentials-file` as NodeOptionName),
    jwtPublicKeyFile: get<string | undefined>(`${prefix}-authentication-jwt-public-key-file` as NodeOptionName),
    algorithm: get<string>(`${prefix}-authentication-jwt-algorithm` as NodeOptionName).toUpperCase(),
    methodsNoAuth: get<string[]>(`${prefix}-api-methods-no-auth` as NodeOptionName),
  };
  if (settings.enabled && !settings.credentialsFile && !settings.jwtPublicKeyFile)
    throw new UsageError(`Unable to authenticate JSON-RPC ${prefix === 'rpc-http' ? 'HTTP' : 'WebSocket'} endpoint without a supplied credentials file or authentication public key file`);
  if (!['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'HS256'].includes(settings.algorithm))
    throw new UsageError(`Invalid value for option '--${prefix}-authentication-jwt-algorithm': '${settings.algorithm}'`);
  return settings;
}

function apis(get: OptionGetter, option: 'rpc-http-api' | 'rpc-ws-api' | 'Xrpc-ipc-api'): string[] {
  try {
    return parseApiList(get<string[]>(option), { option: `--${option}` });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function metricCategories(get: OptionGetter): Set<string> {
  try {
    return parseMetricCategories(get<string[]>('metrics-category'));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function parseNodeOptions(argv: string[]): NodeOptions {
  const bugFlag = argv.find((a) => /^--(bugs?|Xbugs?)(=|$)/.test(a));
  if (bugFlag !== undefined) throw new UsageError(`${bugFlag.split('=')[0]}: known-bug switches run only in the simulator ('qbft-lab bugs check', 'qbft-lab fuzz --bug ID'); a live node never runs with them`);
  const cli = commandLineValues(argv);
  const file = typeof cli['config-file'] === 'string' ? fromConfigFile(cli['config-file']) : {};
  const profile = parseProfile(cli.profile ?? file.profile);
  const profileValues: Raw = profile === undefined ? {} : PROFILE_VALUES[profile];
  const get = <T>(name: NodeOptionName): T => (cli[name] ?? file[name] ?? profileValues[name] ?? (NODE_OPTIONS[name] as OptionSpec).default) as T;
  const dataPath = get<string>('data-path');
  const networkId = get<string | undefined>('network-id');
  const minGasPrice = get<string>('min-gas-price');
  if (!/^\d+$/.test(minGasPrice)) throw new UsageError(`Invalid value for option '--min-gas-price': '${minGasPrice}'`);
  if (networkId !== undefined && !/^\d+$/.test(networkId)) throw new UsageError(`Invalid value for option '--network-id': '${networkId}'`);
  const bootnodes = enodeList(get('bootnodes'), '--bootnodes');
  const permissions = permissionsOptions(get, dataPath);
  if (permissions) checkNodesAllowlisted(bootnodes, permissions.loaded);
  const privacy = privacyOptions(get);
  const gasCap = get<string>('rpc-gas-cap');
  if (!/^\d{1,19}$/.test(gasCap) || BigInt(gasCap) > 2n ** 63n - 1n) throw new UsageError(`Invalid value for option '--rpc-gas-cap': '${gasCap}'`);
  return {
    genesisFile: get('genesis-file'),
    dataPath,
    nodePrivateKeyFile: get('node-private-key-file'),
    networkId: networkId === undefined ? undefined : BigInt(networkId),
    minGasPrice: BigInt(minGasPrice),
    minerExtraData: get('miner-extra-data'),
    rpcHttp: {
      enabled: get('rpc-http-enabled'),
      host: get('rpc-http-host'),
      port: get('rpc-http-port'),
      apis: apis(get, 'rpc-http-api'),
      corsOrigins: corsOrigins(get('rpc-http-cors-origins'), '--rpc-http-cors-origins'),
      maxBatchSize: get('rpc-http-max-batch-size'),
      maxRequestBytes: get('rpc-http-max-request-content-length'),
      maxActiveConnections: get('rpc-http-max-active-connections'),
      auth: authSettings(get, 'rpc-http'),
    },
    rpcWs: {
      enabled: get('rpc-ws-enabled'),
      host: get('rpc-ws-host'),
      port: get('rpc-ws-port'),
      apis: apis(get, 'rpc-ws-api'),
      maxFrameSize: get('rpc-ws-max-frame-size'),
      maxActiveConnections: get('rpc-ws-max-active-connections'),
      auth: authSettings(get, 'rpc-ws'),
    },
    ipc: { enabled: get('Xrpc-ipc-enabled'), path: get<string | undefined>('Xrpc-ipc-path') ?? `${dataPath}/besu.ipc`, apis: apis(get, 'Xrpc-ipc-api') },
    graphql: {
      enabled: get('graphql-http-enabled'),
      host: get('graphql-http-host'),
      port: get('graphql-http-port'),
      corsOrigins: corsOrigins(get('graphql-http-cors-origins'), '--graphql-http-cors-origins'),
    },
    metrics: { enabled: get('metrics-enabled'), host: get('metrics-host'), port: get('metrics-port'), categories: metricCategories(get) },
    hostAllowlist: get('host-allowlist'),
    earlyRoundChange: get('Xqbft-enable-early-round-change'),
    p2p: {
      enabled: get('p2p-enabled'),
      host: get('p2p-host'),
      interface: get('p2p-interface'),
      port: port(get('p2p-port'), '--p2p-port'),
      bootnodes,
      staticNodesFile: get<string | undefined>('static-nodes-file') ?? `${dataPath}/static-nodes.json`,
      maxPeers: get('max-peers'),
      maxRemotelyInitiatedPeers: remotelyInitiatedPeers(get),
      discoveryEnabled: get('discovery-enabled'),
    },
    ...(permissions ? { permissions } : {}),
    ...(privacy ? { privacy } : {}),
    rpcLimits: {
      gasCap: BigInt(gasCap),
      maxLogsRange: get('rpc-max-logs-range'),
      maxTraceFilterRange: get('rpc-max-trace-filter-range'),
      httpTimeoutMs: positiveSeconds(get('Xhttp-timeout-seconds'), '--Xhttp-timeout-seconds') * 1000,
      wsTimeoutMs: positiveSeconds(get('Xws-timeout-seconds'), '--Xws-timeout-seconds') * 1000,
    },
    profile,
  };
}

/** Besu's ProfileName values; ENTERPRISE and PRIVATE load enterprise-private.toml. */
const PROFILES = ['MINIMALIST_STAKER', 'STAKER', 'PERFORMANCE', 'PERFORMANCE_RPC', 'ENTERPRISE', 'PRIVATE', 'DEV'] as const;
export type ProfileName = (typeof PROFILES)[number];

/**
 * What a profile sets among the options this node has (below the config file and the command line).
 * enterprise-private.toml also sets sync, transaction-pool and connection-limit options this node
 * does not have; the staker and performance profiles tune storage and caches it does not have.
 */
const PROFILE_VALUES: Record<ProfileName, Raw> = {
  MINIMALIST_STAKER: {},
  STAKER: {},
  PERFORMANCE: {},
  PERFORMANCE_RPC: {},
  ENTERPRISE: { 'min-gas-price': '0', 'rpc-http-max-active-connections': 300 },
  PRIVATE: { 'min-gas-price': '0', 'rpc-http-max-active-connections': 300 },
  DEV: {},
};

function parseProfile(value: unknown): ProfileName | undefined {
  if (value === undefined) return undefined;
  const name = String(value).toUpperCase().replace(/-/g, '_');
  const found = PROFILES.find((p) => p === name);
  if (!found) throw new UsageError(`Invalid value for option '--profile': '${String(value)}' (expected one of ${PROFILES.join(', ')})`);
  return found;
}

/** Besu's CorsAllowedOriginsProperty: "all" or "*" alone means any origin, "none" alone means none. */
function corsOrigins(values: string[], option: string): string[] {
  const lower = values.map((v) => v.toLowerCase());
  if (lower.includes('none')) {
    if (values.length > 1) throw new UsageError(`Invalid value for option '${option}': Value 'none' can't be used with other domains`);
    return [];
  }
  if (lower.includes('all') || values.includes('*')) {
    if (values.length > 1) throw new UsageError(`Invalid value for option '${option}': Values '*' or 'all' can't be used with other domains`);
    return ['*'];
  }
  return values;
}

function port(value: number, option: string): number {
  if (!(Number.isSafeInteger(value) && value >= 0 && value <= 65535)) throw new UsageError(`Invalid value for option '${option}': ${value} is not a port (0-65535)`);
  return value;
}

/** Besu checks each enode URL of --bootnodes at start-up. */
function enodeList(values: string[], option: string): string[] {
  for (const v of values) {
    try {
      parseEnodeUrl(v);
    } catch (err) {
      throw new UsageError(`Invalid value for option '${option}': ${(err as Error).message}`);
    }
  }
  return values;
}

function remotelyInitiatedPeers(get: <T>(name: NodeOptionName) => T): number {
  const limit = { enabled: get<boolean>('remote-connections-limit-enabled'), maxPercentage: get<number>('remote-connections-max-percentage') };
  try {
    return maxRemotelyInitiatedPeers(get<number>('max-peers'), limit);
  } catch (err) {
    if (err instanceof PeerLimitError) throw new UsageError(`Invalid value for option '--remote-connections-max-percentage': ${err.message}`);
    throw err;
  }
}

/**
 * Besu's privacy options: --privacy-enabled needs --privacy-public-key-file (the manager's 32-byte
 * key in base64, as Tessera's .pub files hold it) and, as the manager runs inside the node,
 * --privacy-private-key-file (Tessera's .key file: the X25519 private key the public key must
 * derive from); the marker signing key file holds a hex private key. --privacy-url (an external
 * Tessera) is refused.
 */
function privacyOptions(get: <T>(name: NodeOptionName) => T): NodeOptions['privacy'] {
  const url = get<string | undefined>('privacy-url');
  const keyFile = get<string | undefined>('privacy-public-key-file');
  const privateKeyFile = get<string | undefined>('privacy-private-key-file');
  const markerFile = get<string | undefined>('privacy-marker-transaction-signing-key-file');
  if (!get<boolean>('privacy-enabled')) {
    if (url !== undefined || keyFile !== undefined || privateKeyFile !== undefined || markerFile !== undefined)
      throw new UsageError('--privacy-url, --privacy-public-key-file, --privacy-private-key-file and --privacy-marker-transaction-signing-key-file need --privacy-enabled');
    return undefined;
  }
  if (url !== undefined)
    throw new UsageError(`--privacy-url ${url}: qbft-lab runs its private transaction manager inside the node; an external manager (Tessera) is not supported. Leave --privacy-url out.`);
  if (keyFile === undefined) throw new UsageError('Please specify Enclave public key file path to enable privacy (--privacy-public-key-file)');
  const text = readOptionFile(keyFile, '--privacy-public-key-file').trim();
  if (!/^[A-Za-z0-9+/]{43}=$/.test(text)) throw new UsageError(`--privacy-public-key-file ${keyFile}: must hold a 32-byte public key in base64 (44 characters), got ${JSON.stringify(text.slice(0, 60))}`);
  const privateKey = privacyPrivateKey(privateKeyFile, text);
  if (markerFile === undefined) return { publicKey: text, privateKey };
  const hex = readOptionFile(markerFile, '--privacy-marker-transaction-signing-key-file').trim().replace(/^0x/, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex) || /^0+$/.test(hex))
    throw new UsageError(`--privacy-marker-transaction-signing-key-file ${markerFile}: must hold a 32-byte private key in hex`);
  return { publicKey: text, privateKey, markerSigningKey: Uint8Array.from(Buffer.from(hex, 'hex')) };
}

/** The private half of `publicKey` from --privacy-private-key-file; a key of another pair is refused. */
function privacyPrivateKey(file: string | undefined, publicKey: string): Uint8Array {
  if (file === undefined)
    throw new UsageError('--privacy-private-key-file is needed with --privacy-enabled: the private transaction manager runs inside the node and proves and opens with the private key (Tessera kept it)');
  const parsed = parsePrivacyPrivateKey(readOptionFile(file, '--privacy-private-key-file'));
  if ('error' in parsed) throw new UsageError(`--privacy-private-key-file ${file}: ${parsed.error}`);
  const derived = privacyPublicKeyText(parsed.privateKey);
  if (derived !== publicKey) throw new UsageError(`--privacy-private-key-file ${file}: its public key is ${derived}, not ${publicKey} from --privacy-public-key-file`);
  return parsed.privateKey;
}

function readOptionFile(path: string, option: string): string {
  try {
    const stat = statSync(path);
    if (stat.size > 4096) throw new UsageError(`${option} ${path}: the file is larger than a key file can be`);
    return readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${option} ${path}: cannot read it (${(err as Error).message})`);
  }
}

/**
 * Besu's PermissionsOptions.permissioningConfiguration: nothing unless one list is enabled; then
 * the enabled lists are read now, so a missing or broken file stops the start.
 */
function permissionsOptions(get: <T>(name: NodeOptionName) => T, dataPath: string): PermissionsOptions | undefined {
  const settings: PermissionsSettings = {
    nodesEnabled: get<boolean>('permissions-nodes-config-file-enabled'),
    nodesFile: get<string | undefined>('permissions-nodes-config-file') ?? defaultPermissionsFile(dataPath),
    accountsEnabled: get<boolean>('permissions-accounts-config-file-enabled'),
    accountsFile: get<string | undefined>('permissions-accounts-config-file') ?? defaultPermissionsFile(dataPath),
  };
  if (!settings.nodesEnabled && !settings.accountsEnabled) return undefined;
  try {
    return { settings, loaded: loadAllowlists(settings) };
  } catch (err) {
    if (err instanceof PermissionsFileError) throw new UsageError(err.message);
    throw err;
  }
}

/** A request timeout: a whole number of seconds, at least 1 (Besu's Vert.x timer cannot be 0). */
function positiveSeconds(value: number, option: string): number {
  if (!(Number.isSafeInteger(value) && value >= 1)) throw new UsageError(`Invalid value for option '${option}': '${value}' (a whole number of seconds, at least 1)`);
  return value;
}

/**
 * The architecture as data, and a pure checker of it over source texts:
 *   - layering: which top-level folder may import which; the simulator, scenarios and reports reach
 *     node/ only through NODE_SURFACE; the invariant checkers (sim/checkers/) never use node/ code;
 *   - built-ins: `node:` modules (and the live runtime's node/runtime/live-*.ts) only in LIVE_ZONES,
 *     elsewhere per file in BUILT_IN_ALLOWED, each with its reason;
 *   - determinism: no wall clock, real timer or OS randomness outside LIVE_ZONES, elsewhere per file
 *     in DETERMINISM_ALLOWED;
 *   - test helpers (*test-kit.ts, test-fixtures.ts) count as test code, and production code never
 *     imports them; those inside node/ still import nothing outside node/;
 *   - folder order inside node/ (NODE_ORDER): a module imports node/ modules of its own rank or below;
 *   - reach-through (NODE_REACH, node-reach.ts): the node's parts stay behind its composition root;
 *     the outside holds a node by its view and actions only;
 *   - bug switches (BUG_SWITCH_HOMES): known-bug switches are named and read in node/bugs/ and
 *     sim/bugs/ only; the rest of the node asks its hook points (node/bugs/hooks.ts).
 * What breaks these rules today and is not meant to stay is listed in KNOWN_EXCEPTIONS.
 */
import { builtinModules } from 'node:module';
import { posix } from 'node:path';
import { reachThroughFindings, type ReachRules } from './node-reach.ts';

export interface SourceFile {
  /** Relative to the repository root, POSIX separators. */
  path: string;
  source: string;
}

export type RuleId = 'layering' | 'node-surface' | 'checker-independence' | 'test-helper' | 'built-in' | 'determinism' | 'folder-order' | 'reach-through' | 'bug-switch';

export interface Violation {
  path: string;
  line: number;
  rule: RuleId;
  /** The imported module (resolved to a repository path, or `node:name`) or the forbidden call. */
  subject: string;
  message: string;
}

const LAYERS = ['node', 'sim', 'scenarios', 'reports', 'cli', 'bin', 'scripts', 'test'] as const;
/** `entry`: the package's library entry, a .ts file at the repository root (index.ts). */
type Layer = (typeof LAYERS)[number] | 'entry';

/** What each top-level folder may import besides itself (node/ only through NODE_SURFACE from sim, scenarios, reports, entry). */
export const LAYER_IMPORTS: Readonly<Record<Layer, readonly Layer[]>> = {
  node: [],
  sim: ['node'],
  entry: ['sim', 'scenarios', 'reports', 'node'],
  scenarios: ['sim', 'node'],
  reports: ['sim', 'scenarios', 'node'],
  cli: ['node', 'sim', 'scenarios', 'reports', 'entry'],
  bin: ['node', 'sim', 'scenarios', 'reports', 'cli', 'entry'],
  scripts: ['node', 'sim', 'scenarios', 'reports', 'cli', 'bin', 'test', 'entry'],
  test: ['node', 'sim', 'scenarios', 'reports', 'cli', 'bin', 'scripts', 'entry'],
};

/** Who reaches node/ only through NODE_SURFACE: the simulator, scenarios, reports and the library entry. */
const OUTSIDE_NODE = /^(sim|scenarios|reports)\/|^[\w-]+\.tsx?$/;
const BYZANTINE = /^sim\/byzantine(\.ts$|\/)/;
/** The message-level harness (sim/harness/): one real node and scripted validator peers. */
const HARNESS = /^sim\/harness\//;

/**
 * The node modules that sim/, scenarios/, reports/ and the library entry may import, and who may
 * use each. A new deep import into node/ fails until it is added here with its reason.
 */
/** The rehearsal's history before its stop block (sim/operator/): made and checked with the node's own code, without the message exchange. */
const REHEARSAL_HISTORY = /^sim\/operator\/(fast-prefix|prefix-[\w-]+|scratch-node)\.ts$/;
export const NODE_SURFACE: ReadonlyArray<{ module: string; usedBy: RegExp; why: string }> = [
  { module: 'node/chain/chain.ts', usedBy: REHEARSAL_HISTORY, why: 'ChainHistory: the read-only history a node store carries below the live blocks' },
  { module: 'node/chain/chain.ts', usedBy: /^sim\/storage\.ts$/, why: 'ChainHistory, carried by a simulated store (the rehearsal history)' },
  { module: 'node/execution/state-db.ts', usedBy: REHEARSAL_HISTORY, why: 'the state of the history blocks, in a trie node store of their own' },
  { module: 'node/chain/block-hashing.ts', usedBy: REHEARSAL_HISTORY, why: 'hashes and commit seals of the history blocks' },
  { module: 'node/consensus/qbft/proposer-selection.ts', usedBy: REHEARSAL_HISTORY, why: 'the proposer (coinbase) of each history block' },
  { module: 'node/chain/header-rules.ts', usedBy: REHEARSAL_HISTORY, why: "the node's header rules, applied to every copied history block" },
  { module: 'node/chain/fork-schedule.ts', usedBy: REHEARSAL_HISTORY, why: 'the rules in force at each history block' },
  { module: 'node/consensus/qbft/signer-cache.ts', usedBy: REHEARSAL_HISTORY, why: 'signing the history seals and recovering the sampled ones' },
  { module: 'node/execution/state-persistence.ts', usedBy: REHEARSAL_HISTORY, why: 'the world state of the history head, as a node would have stored it' },
  { module: 'node/node.ts', usedBy: OUTSIDE_NODE, why: 'createNode, the NodeView and actions a node is held by, and its config and value types' },
  { module: 'node/p2p/peer-limits.ts', usedBy: /^sim\/topology\.ts$/, why: "Besu's share of --max-peers that may be inbound, which shapes the simulated peer graph" },
  { module: 'node/runtime/ports.ts', usedBy: OUTSIDE_NODE, why: 'the ports (clock, timers, random, transport, store, log) the simulator implements' },
  { module: 'node/runtime/trace-events.ts', usedBy: OUTSIDE_NODE, why: 'the events a node reports through its Log port' },
  { module: 'node/bugs/bug-switches.ts', usedBy: OUTSIDE_NODE, why: 'the planted-bug switches a scenario turns on' },
  { module: 'node/chain/genesis.ts', usedBy: OUTSIDE_NODE, why: 'parseGenesis: the genesis a world starts from' },
  { module: 'node/chain/extra-data.ts', usedBy: OUTSIDE_NODE, why: "the genesis extraData that carries the validator list" },
  { module: 'node/crypto/bytes.ts', usedBy: OUTSIDE_NODE, why: 'byte and hex conversions' },
  { module: 'node/crypto/keccak.ts', usedBy: OUTSIDE_NODE, why: 'keccak-256 (trace hashes, deterministic keys)' },
  { module: 'node/crypto/secp256k1.ts', usedBy: OUTSIDE_NODE, why: 'addresses of the validator keys' },
  { module: 'node/consensus/qbft/quorum.ts', usedBy: OUTSIDE_NODE, why: 'quorum size and fault bound of n validators' },
  // Deep imports with one user each.
  { module: 'node/chain/common.ts', usedBy: /^sim\/world\.ts$/, why: 'one shared @ethereumjs Common per chain configuration for all nodes of a world' },
  { module: 'node/chain/stored-rules.ts', usedBy: /^sim\/world\.ts$/, why: 'StoredHistoryError: a restarted node refusing its stored chain is a run outcome' },
  { module: 'node/execution/state-db.ts', usedBy: /^sim\/world\.ts$/, why: 'one trie node store shared by the nodes of a world (memory)' },
  { module: 'node/execution/execution-memo.ts', usedBy: /^sim\/world\.ts$/, why: 'block execution done once per world, not once per node (speed)' },
  { module: 'node/rpc/dispatcher.ts', usedBy: /^sim\/node-rpc-client\.ts$/, why: "scenario RPC steps go through the node's own JSON-RPC dispatcher" },
  { module: 'node/rpc/node-rpc.ts', usedBy: /^sim\/node-rpc-client\.ts$/, why: 'the JSON-RPC methods of a node' },
  { module: 'node/rpc/registry.ts', usedBy: /^sim\/node-rpc-client\.ts$/, why: 'the method registry the dispatcher serves' },
  { module: 'node/rpc/transports/in-process.ts', usedBy: /^sim\/(node-rpc-client|privacy-run)\.ts$/, why: 'the in-process RPC connection (no socket, no clock)' },
  { module: 'node/privacy/private-transaction.ts', usedBy: /^sim\/privacy-run\.ts$/, why: "private-tx steps sign Besu's private transactions as a client would" },
  // Byzantine validators forge and mangle wire messages with the node's own codec and signer.
  { module: 'node/consensus/qbft/messages.ts', usedBy: BYZANTINE, why: 'QBFT message encoding and signing' },
  { module: 'node/consensus/qbft/messages/rlp-raw.ts', usedBy: BYZANTINE, why: 'raw RLP lists for malformed messages' },
  { module: 'node/consensus/qbft/signer-cache.ts', usedBy: BYZANTINE, why: 'signing and recovery with the per-run cache' },
  { module: 'node/consensus/qbft/rules.ts', usedBy: BYZANTINE, why: 'the names of the validation rules break-rules targets' },
  { module: 'node/chain/block-hashing.ts', usedBy: BYZANTINE, why: 'blocks and committed-seal hashes of forged proposals' },
  { module: 'node/p2p/eth-messages.ts', usedBy: BYZANTINE, why: 'eth block messages served and announced with forged blocks' },
  // The teaching reports explain the rules with the node's own definitions.
  { module: 'node/consensus/qbft/proposer-selection.ts', usedBy: /^reports\/teach\//, why: 'which validator proposes a round, for the explanation' },
  { module: 'node/consensus/qbft/proposer-selection.ts', usedBy: HARNESS, why: 'which scripted peer proposes a round' },
  { module: 'node/consensus/qbft/messages.ts', usedBy: HARNESS, why: "scripted peers sign, encode and decode QBFT messages" },
  { module: 'node/chain/block-hashing.ts', usedBy: HARNESS, why: 'sealed blocks: commit round and seals written into extraData' },
  { module: 'node/chain/chain.ts', usedBy: HARNESS, why: 'a sealed block not stored yet as a parent to build on (entryFromBlock)' },
  { module: 'node/consensus/qbft/validators/vote-tally.ts', usedBy: /^reports\/teach\//, why: 'the vote tally shown in lessons on adding and removing validators' },
  { module: 'node/chain/fork-schedule.ts', usedBy: /^reports\/teach\//, why: 'QbftForkParams of transitions (types)' },
];

/** The live runtime: node/runtime/ modules that assemble node parts for the live node, so they sit on top beside node/cli. */
const LIVE_RUNTIME = /^node\/runtime\/(live-rlpx-transport|live-pause)\.ts$/;

/**
 * The order inside node/, lowest rank first: a module may import node/ modules of its own rank or
 * below (test helpers, being test code, may import any). Every node/ module has exactly one rank.
 */
export const NODE_ORDER: ReadonlyArray<{ rank: string; parts: ReadonlyArray<{ files: RegExp; why: string }> }> = [
  {
    rank: 'runtime ports',
    parts: [
      {
        files: /^node\/runtime\/(?!(live-rlpx-transport|live-pause)\.ts$)/,
        why: 'the ports and trace events every part talks through, and the live adapters of one port each (clock, timers, random, log, store, loopback network) that use nothing else of the node',
      },
    ],
  },
  {
    rank: 'crypto',
    parts: [
      { files: /^node\/crypto\//, why: 'bytes, hashes and signatures: no chain knowledge' },
      { files: /^node\/collections\//, why: 'generic data structures (bounded set, mutex): no chain knowledge' },
    ],
  },
  { rank: 'chain', parts: [{ files: /^node\/chain\//, why: 'blocks, headers, genesis, forks and the rules a header obeys' }] },
  { rank: 'execution', parts: [{ files: /^node\/execution\//, why: 'the EVM, world state and transaction pool over chain blocks' }] },
  { rank: 'privacy', parts: [{ files: /^node\/privacy\//, why: "private transactions: their own state, run on execution's EVM (Besu's privacy sits above the core)" }] },
  { rank: 'bugs', parts: [{ files: /^node\/bugs\//, why: "the known-bug switches and Besu's behaviour at each bug hook point (hooks.ts), which the rest of the node asks" }] },
  { rank: 'consensus', parts: [{ files: /^node\/consensus\//, why: 'QBFT: proposes, validates and seals chain blocks, executes them through its ports' }] },
  { rank: 'p2p', parts: [{ files: /^node\/p2p\//, why: 'devp2p, eth and sync: carry chain blocks and consensus messages' }] },
  { rank: 'permissioning', parts: [{ files: /^node\/permissioning\//, why: "account and node allowlists: judge peers by p2p's enode addresses" }] },
  {
    rank: 'node view',
    parts: [{ files: /^node\/view\//, why: "the node's read-only NodeView, its named actions and its config: what rpc, metrics and everything outside the node hold a node by" }],
  },
  { rank: 'rpc', parts: [{ files: /^node\/rpc\//, why: 'JSON-RPC, GraphQL and their transports: read and drive every part below' }] },
  { rank: 'metrics', parts: [{ files: /^node\/metrics\//, why: "the /metrics endpoint, served with rpc's HTTP and listen helpers" }] },
  {
    rank: 'composition root',
    parts: [
      { files: /^node\/[\w.-]+\.ts$/, why: 'node/node.ts and its siblings build the node from the parts; only the command line and the live runtime sit above' },
      { files: /^node\/parts\//, why: "the node's jobs (import, block production, proposal validation, the transaction index, restoring state...), each wired by node/node.ts" },
    ],
  },
  {
    rank: 'cli',
    parts: [
      { files: /^node\/cli\//, why: "the node's command line: builds and starts a live node" },
      { files: LIVE_RUNTIME, why: "the live RLPx transport (p2p's RLPx, rpc's listen and PeerDirectory) and the live Pause of rpc's reads" },
    ],
  },
];

/**
 * The node behind its composition root: node/node.ts wires node/parts/ and returns the handle
 * (node/parts/node-handle.ts), which the outside holds by the interfaces of node/view/node-view.ts.
 */
export const NODE_REACH: ReachRules = {
  root: 'node/node.ts',
  rootMaxLines: 250,
  parts: /^node\/parts\//,
  handle: { module: 'node/parts/node-handle.ts', className: 'QbftNode', partsInterface: 'NodeParts' },
  view: { files: /^node\/view\//, module: 'node/view/node-view.ts', interfaces: ['NodeView', 'NodeActions', 'ConsensusDriver'] },
  rootExports: [
    // the node
    'createNode', 'QbftNode', 'NodeView', 'NodeActions', 'ConsensusDriver',
    // its config
    'NodeConfig', 'BlockRequest', 'BlockCreator', 'ProposalBlockSpec', 'PrivacyConfig', 'Reproposal', 'ConsensusSigner',
    // values its view and actions answer with
    'ImportOutcome', 'SubmitOutcome', 'TxLocation', 'PooledTxMeta', 'MiningState', 'SyncStatus', 'ExecutionStats', 'HeadListener', 'NodeProposedBlock', 'ChainEntry',
  ],
  hiddenClasses: ['Chain', 'ExecutionEngine', 'TxPool', 'BlockSync', 'QbftService', 'HeightManager', 'ValidatorSets', 'VoteProposer', 'StatePersistence'],
};

/** The rank of a node/ module (its index in NODE_ORDER), undefined when no part names it. */
export function nodeRankOf(path: string): number | undefined {
  const rank = NODE_ORDER.findIndex((r) => r.parts.some((p) => p.files.test(path)));
  return rank === -1 ? undefined : rank;
}

/** The invariant checkers judge the node from the trace and the wire: they may import only types of these from node/. */
export const CHECKER_NODE_TYPES: readonly string[] = ['node/runtime/trace-events.ts', 'node/runtime/ports.ts'];
const CHECKERS = /^sim\/checkers\//;

/** Helpers of *.test.ts files: test code wherever they sit. */
const TEST_HELPER = /(^|\/|-)test-kit\.ts$|(^|\/)test-fixtures\.ts$/;
/** Who may import a test helper besides tests and other helpers. */
const TEST_HELPER_USERS = /^(test|scripts)\/|-bench\.ts$/;

/** Where `node:` built-ins, real time and OS randomness belong: the live edges and the tooling. */
export const LIVE_ZONES: ReadonlyArray<{ files: RegExp; why: string }> = [
  { files: /^node\/runtime\/live-[\w-]+\.ts$/, why: 'the live implementations of the ports' },
  { files: /^node\/rpc\/transports\/(?!in-process\.ts$)[\w-]+\.ts$/, why: 'HTTP, WebSocket and IPC servers (in-process.ts is the simulator\'s and is not live)' },
  { files: /^node\/rpc\/off-loop\/(worker-simulator|simulator-worker)\.ts$/, why: "the live node's RPC worker threads (in the simulator RPC runs on the node's thread)" },
  { files: /^node\/cli\//, why: "the node's command line" },
  { files: /^cli\//, why: 'the qbft-lab command line' },
  { files: /^bin\//, why: 'the executable' },
  { files: /^scripts\//, why: 'build and screenshot scripts' },
  { files: /^test\//, why: 'tests, their kits and the benchmarks' },
  { files: /-bench\.ts$/, why: 'benchmarks measure wall time' },
  { files: TEST_HELPER, why: 'helpers of tests (real sockets and timers for live-only code)' },
];

/** `node:` built-ins (and node/runtime/live-*.ts) outside LIVE_ZONES: exactly these modules in exactly these files. */
export const BUILT_IN_ALLOWED: ReadonlyArray<{ path: string; modules: readonly string[]; why: string }> = [
  { path: 'node/crypto/keccak.ts', modules: ['node:module', 'node:path'], why: 'loads the native keccak binding (createRequire), @noble otherwise' },
  { path: 'node/crypto/secp256k1.ts', modules: ['node:module'], why: 'loads the native libsecp256k1 binding, @noble otherwise' },
  { path: 'node/crypto/kzg.ts', modules: ['node:module'], why: 'loads the KZG trusted setup (~150 ms) on first use only' },
  { path: 'node/crypto/ethereumjs-crypto.ts', modules: ['node:module', 'node:crypto'], why: 'native bindings for @ethereumjs; sha-256 by createHash (a pure function)' },
  { path: 'node/p2p/rlpx/session-secrets.ts', modules: ['node:module', 'node:path'], why: 'the native keccak sponge of the RLPx frame MACs' },
  { path: 'node/p2p/rlpx/ecies.ts', modules: ['node:crypto'], why: 'AES-128-CTR and HMAC of the RLPx handshake (keys and IVs come from the caller)' },
  { path: 'node/p2p/rlpx/frame-codec.ts', modules: ['node:crypto'], why: 'AES-256-CTR of RLPx frames' },
  { path: 'node/p2p/rlpx/frame-mac.ts', modules: ['node:crypto'], why: 'AES-256-ECB of the RLPx frame MAC' },
  { path: 'node/p2p/rlpx/rlpx-connection.ts', modules: ['node:events', 'node:stream', 'node/runtime/live-timers.ts'], why: 'the live socket layer: an RLPx session over a connected Duplex; real timers unless given others' },
  { path: 'node/p2p/discovery/discovery.ts', modules: ['node:dgram'], why: 'the live socket layer: the discv4 UDP socket' },
  { path: 'node/p2p/discovery/bootnodes.ts', modules: ['node:dns/promises'], why: 'the live socket layer: resolves bootnode host names once at start' },
  { path: 'node/p2p/discovery/discovery-options.ts', modules: ['node/runtime/live-clock.ts', 'node/runtime/live-random.ts', 'node/runtime/live-timers.ts'], why: 'defaults of the live discovery service' },
  { path: 'node/rpc/off-loop/request-budget.ts', modules: ['node:async_hooks'], why: "carries a request's AbortSignal from its transport to the work it starts (no time, no randomness)" },
  { path: 'node/metrics/metrics-http.ts', modules: ['node:http', 'node:zlib'], why: 'the live /metrics HTTP endpoint' },
  { path: 'sim/trace.ts', modules: ['node:fs', 'node:module'], why: 'writes and reads trace JSONL files; the native keccak binding for the trace hash' },
  { path: 'sim/fuzz.ts', modules: ['node:fs', 'node:path'], why: "writes a failing case's reproduction file" },
  { path: 'sim/parallel-checkers.ts', modules: ['node:worker_threads', 'node:url'], why: "runs one run's invariant checkers in a worker thread, on the second core" },
  { path: 'sim/checkers/checker-worker.ts', modules: ['node:worker_threads'], why: 'the worker thread that hosts the invariant checkers of one run' },
  { path: 'sim/checkers/toolkit/crypto.ts', modules: ['node:module', 'node:path'], why: "the checkers' own native keccak and secp256k1 bindings (the keccak package's folder for its prebuilt sponge)" },
  { path: 'reports/html.ts', modules: ['node:fs'], why: 'writes the HTML report' },
  { path: 'reports/markdown.ts', modules: ['node:fs'], why: 'writes the Markdown report' },
  { path: 'reports/write-reports.ts', modules: ['node:fs', 'node:path'], why: "writes a run's reports into a folder" },
  { path: 'reports/trace-source.ts', modules: ['node:fs'], why: 'reads a trace file' },
  { path: 'reports/browser.ts', modules: ['node:fs', 'node:os', 'node:path'], why: 'a fresh temporary profile for headless Chromium (report tests, screenshots)' },
];

/** The forbidden calls: wall clock, real timers, OS randomness. Matched on the source with comments blanked. */
export const DETERMINISM_TOKENS: ReadonlyArray<{ token: string; pattern: RegExp }> = [
  { token: 'Date', pattern: /\bDate\s*\.\s*now\b|\bnew\s+Date\b|(?<![\w$.])Date\s*\(/g },
  { token: 'Math.random', pattern: /\bMath\s*\.\s*random\b/g },
  { token: 'setTimeout', pattern: /\bsetTimeout\b/g },
  { token: 'setInterval', pattern: /\bsetInterval\b/g },
  { token: 'setImmediate', pattern: /\bsetImmediate\b/g },
  { token: 'performance.now', pattern: /\bperformance\s*\.\s*now\b/g },
  { token: 'process.hrtime', pattern: /\bprocess\s*\.\s*hrtime\b/g },
  { token: 'randomBytes', pattern: /\brandomBytes\b/g },
  { token: 'getRandomValues', pattern: /\bgetRandomValues\b/g },
  { token: 'randomUUID', pattern: /\brandomUUID\b/g },
];

/** Forbidden calls outside LIVE_ZONES: exactly these in exactly these files. */
export const DETERMINISM_ALLOWED: ReadonlyArray<{ path: string; tokens: readonly string[]; why: string }> = [
  {
    path: 'sim/kernel.ts',
    tokens: ['setImmediate'],
    why: "drain modes 'immediate' and 'async' wait one check-phase turn for microtasks to settle; no time is read",
  },
];

/**
 * Where known-bug switches are named and read: node/bugs/ (the switches and the hook points built
 * from them) and sim/bugs/ (the catalogue, versions and hunts). Elsewhere in node/ and sim/ a
 * string that starts with a switch id (`'besu-2095'`, `plant-skip-${rule}`) is a switch read, and
 * inside node/ the switch module (node/bugs/bug-switches.ts) is imported for its types only: the
 * node asks its hooks, so the core reads as Besu's current behaviour.
 */
export const BUG_SWITCH_HOMES = /^(node|sim)\/bugs\//;
const BUG_SWITCH_SCOPE = /^(node|sim)\//;
const BUG_SWITCH_MODULE = 'node/bugs/bug-switches.ts';
const SWITCH_NAME = /(['"`])((?:besu-\d|ghsa-|plant-)[^'"`\n]*)/g;

/** Breaks of the intended architecture that are there today, to be fixed in their own files, not allowed by design. */
const KIT_IN_NODE = 'a node/ test kit that builds a simulated world; to move out of node/ beside the tests that import it';
export const KNOWN_EXCEPTIONS: ReadonlyArray<{ path: string; rule: RuleId; subject: string; why: string }> = [
  {
    path: 'node/runtime/ports.ts',
    rule: 'folder-order',
    subject: 'node/chain/chain.ts',
    why: "the Store port carries a ChainHistory, whose blocks are chain types (Block, Common, extraData); to become a port of its own over bytes",
  },
  { path: 'node/rpc/methods/test-kit.ts', rule: 'layering', subject: 'sim/world.ts', why: KIT_IN_NODE },
  { path: 'node/rpc/methods/test-kit.ts', rule: 'layering', subject: 'sim/genesis-builder.ts', why: KIT_IN_NODE },
  { path: 'node/rpc/methods/test-kit.ts', rule: 'layering', subject: 'sim/keys.ts', why: KIT_IN_NODE },
  { path: 'node/privacy/privacy-test-kit.ts', rule: 'layering', subject: 'sim/world.ts', why: KIT_IN_NODE },
  { path: 'node/privacy/privacy-test-kit.ts', rule: 'layering', subject: 'sim/genesis-builder.ts', why: KIT_IN_NODE },
  { path: 'node/privacy/privacy-test-kit.ts', rule: 'layering', subject: 'sim/keys.ts', why: KIT_IN_NODE },
  { path: 'node/privacy/privacy-test-kit.ts', rule: 'layering', subject: 'sim/privacy-run.ts', why: KIT_IN_NODE },
];

const BUILT_IN_NAMES = new Set(builtinModules.filter((m) => !m.startsWith('_')));
const LIVE_RUNTIME_MODULE = /^node\/runtime\/live-[\w-]+\.ts$/;

export interface ImportRef {
  specifier: string;
  line: number;
  typeOnly: boolean;
}

/**
 * The source with comments replaced by spaces (newlines kept, so lines and offsets stay), strings,
 * template literals and regular expression literals left as they are.
 */
export function blankComments(source: string): string {
  const out: string[] = [];
  let i = 0;
  let prev = ''; // last code character that is not white space, to tell a regex literal from a division
  let prevWord = '';
  const templateBraces: number[] = []; // brace depth at which each open `${` returns to its template
  let braces = 0;
  const copyUntil = (end: number) => {
    out.push(source.slice(i, end));
    i = end;
  };
  const scanTemplate = () => {
    // i is just past a backtick or a `}` that closes a `${`.
    let j = i;
    while (j < source.length) {
      const ch = source[j];
      if (ch === '\\') j += 2;
      else if (ch === '`') return copyUntil(j + 1);
      else if (ch === '$' && source[j + 1] === '{') {
        templateBraces.push(braces);
        braces++;
        return copyUntil(j + 2);
      } else j++;
    }
    copyUntil(source.length);
  };
  while (i < source.length) {
    const ch = source[i];
    const next = source[i + 1];
    if (ch === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      const stop = end === -1 ? source.length : end;
      out.push(' '.repeat(stop - i));
      i = stop;
    } else if (ch === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end === -1 ? source.length : end + 2;
      out.push(source.slice(i, stop).replace(/[^\n]/g, ' '));
      i = stop;
    } else if (ch === "'" || ch === '"') {
      let j = i + 1;
      while (j < source.length && source[j] !== ch && source[j] !== '\n') j += source[j] === '\\' ? 2 : 1;
      copyUntil(Math.min(j + 1, source.length));
      prev = ch;
    } else if (ch === '`') {
      i++;
      out.push('`');
      scanTemplate();
      prev = '`';
    } else if (ch === '}' && templateBraces.length > 0 && templateBraces[templateBraces.length - 1] === braces - 1) {
      templateBraces.pop();
      braces--;
      i++;
      out.push('}');
      scanTemplate();
      prev = '`';
    } else if (ch === '/' && (prev === '' || '([{,;:=!&|?+-*%<>~^'.includes(prev) || /^(return|typeof|case|do|else|in|of|void|yield|await|throw|delete|new)$/.test(prevWord))) {
      let j = i + 1;
      let inClass = false;
      while (j < source.length && source[j] !== '\n') {
        const c = source[j];
        if (c === '\\') j += 2;
        else {
          if (c === '[') inClass = true;
          else if (c === ']') inClass = false;
          else if (c === '/' && !inClass) break;
          j++;
        }
      }
      copyUntil(Math.min(j + 1, source.length));
      prev = '/';
      prevWord = '';
    } else {
      if (ch === '{') braces++;
      else if (ch === '}') braces--;
      if (/\s/.test(ch)) {
        copyUntil(i + 1);
        continue;
      }
      if (/[\w$]/.test(ch)) {
        const m = /^[\w$]+/.exec(source.slice(i, i + 64))!;
        prevWord = m[0];
        prev = 'a';
        copyUntil(i + m[0].length);
        continue;
      }
      prev = ch;
      prevWord = '';
      copyUntil(i + 1);
    }
  }
  return out.join('');
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let k = text.indexOf('\n'); k !== -1 && k < index; k = text.indexOf('\n', k + 1)) line++;
  return line;
}

const STATIC_IMPORT = /^[ \t]*(import|export)\b([^;'"`]*?)\bfrom\s*(['"])([^'"\n]+)\3/gm;
const SIDE_EFFECT_IMPORT = /^[ \t]*import\s*(['"])([^'"\n]+)\1/gm;
const DYNAMIC_IMPORT = /\bimport\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g;
const REQUIRE_CALL = /\brequire\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g;

/** Every import of a source whose comments are blanked: static, re-export, side effect, import('...'), require('...'). */
export function importsOf(code: string): ImportRef[] {
  const refs: ImportRef[] = [];
  for (const m of code.matchAll(STATIC_IMPORT)) {
    refs.push({ specifier: m[4], line: lineAt(code, m.index!), typeOnly: /^\s*type\b/.test(m[2]) });
  }
  for (const m of code.matchAll(SIDE_EFFECT_IMPORT)) refs.push({ specifier: m[2], line: lineAt(code, m.index!), typeOnly: false });
  for (const m of code.matchAll(DYNAMIC_IMPORT)) {
    const typeOnly = /\btypeof\s+$/.test(code.slice(Math.max(0, m.index! - 16), m.index));
    refs.push({ specifier: m[2], line: lineAt(code, m.index!), typeOnly });
  }
  for (const m of code.matchAll(REQUIRE_CALL)) refs.push({ specifier: m[2], line: lineAt(code, m.index!), typeOnly: false });
  return refs.sort((a, b) => a.line - b.line);
}

/** `node:x` for a built-in module (written with or without the prefix), a repository path for a relative one, else the package name as written. */
export function resolveSpecifier(importer: string, specifier: string): string {
  if (specifier.startsWith('node:')) return specifier;
  if (specifier.startsWith('.')) return posix.normalize(posix.join(posix.dirname(importer), specifier));
  if (BUILT_IN_NAMES.has(specifier)) return `node:${specifier}`;
  return specifier;
}

function layerOf(path: string): Layer | undefined {
  if (/^[\w-]+\.tsx?$/.test(path)) return 'entry';
  const top = path.split('/')[0];
  return (LAYERS as readonly string[]).includes(top) ? (top as Layer) : undefined;
}

const isLive = (path: string) => LIVE_ZONES.some((z) => z.files.test(path));
const isTestHelper = (path: string) => TEST_HELPER.test(path);

function importViolations(path: string, ref: ImportRef): Omit<Violation, 'path' | 'line'>[] {
  const target = resolveSpecifier(path, ref.specifier);
  const found: Omit<Violation, 'path' | 'line'>[] = [];
  const from = layerOf(path);
  const to = layerOf(target);
  const helper = isTestHelper(path);

  if (isTestHelper(target) && !helper && !TEST_HELPER_USERS.test(path)) {
    found.push({ rule: 'test-helper', subject: target, message: `imports the test helper ${target}` });
  }
  if ((!helper || from === 'node') && from && to && from !== to && !LAYER_IMPORTS[from].includes(to)) {
    found.push({ rule: 'layering', subject: target, message: `${from}/ may not import ${to}/ (${target})` });
  }
  if (!helper && from === 'node' && to === 'node') {
    const order = folderOrderViolation(path, target);
    if (order) found.push({ rule: 'folder-order', subject: target, message: order });
  }
  if (!helper && to === 'node' && CHECKERS.test(path)) {
    if (!(ref.typeOnly && CHECKER_NODE_TYPES.includes(target))) {
      found.push({ rule: 'checker-independence', subject: target, message: `an invariant checker may not use node code (${target}); judge from the trace and the wire` });
    }
  } else if (!helper && to === 'node' && OUTSIDE_NODE.test(path)) {
    if (!NODE_SURFACE.some((s) => s.module === target && s.usedBy.test(path))) {
      found.push({ rule: 'node-surface', subject: target, message: `${target} is not in NODE_SURFACE for ${path}` });
    }
  }
  if (!isLive(path) && (target.startsWith('node:') || LIVE_RUNTIME_MODULE.test(target))) {
    if (!BUILT_IN_ALLOWED.some((a) => a.path === path && a.modules.includes(target))) {
      found.push({ rule: 'built-in', subject: target, message: `${target} outside the live runtime, transports and CLI` });
    }
  }
  return found;
}

function folderOrderViolation(path: string, target: string): string | undefined {
  const from = nodeRankOf(path);
  const to = nodeRankOf(target);
  if (from === undefined) return `${path} has no rank in NODE_ORDER`;
  if (to === undefined) return `${target} has no rank in NODE_ORDER`;
  if (to <= from) return undefined;
  return `${NODE_ORDER[from].rank} may not import ${NODE_ORDER[to].rank} (${target})`;
}

function determinismViolations(path: string, code: string): Violation[] {
  if (isLive(path)) return [];
  const found: Violation[] = [];
  for (const { token, pattern } of DETERMINISM_TOKENS) {
    if (DETERMINISM_ALLOWED.some((a) => a.path === path && a.tokens.includes(token))) continue;
    for (const m of code.matchAll(pattern)) {
      found.push({ path, line: lineAt(code, m.index!), rule: 'determinism', subject: token, message: `${token}: real time or randomness outside the live runtime` });
    }
  }
  return found;
}

function bugSwitchViolations(path: string, code: string): Violation[] {
  if (!BUG_SWITCH_SCOPE.test(path) || BUG_SWITCH_HOMES.test(path) || isTestHelper(path)) return [];
  const found: Violation[] = [];
  for (const m of code.matchAll(SWITCH_NAME)) {
    found.push({ path, line: lineAt(code, m.index!), rule: 'bug-switch', subject: m[2], message: `names the bug switch ${m[2]} outside node/bugs/ and sim/bugs/: ask a hook of node/bugs/hooks.ts` });
  }
  if (path.startsWith('node/')) {
    for (const ref of importsOf(code)) {
      if (!ref.typeOnly && resolveSpecifier(path, ref.specifier) === BUG_SWITCH_MODULE) {
        found.push({ path, line: ref.line, rule: 'bug-switch', subject: BUG_SWITCH_MODULE, message: `reads the bug switches outside node/bugs/ (import its types only): ask a hook of node/bugs/hooks.ts` });
      }
    }
  }
  return found;
}

function isKnownException(v: Violation): boolean {
  return KNOWN_EXCEPTIONS.some((e) => e.path === v.path && e.rule === v.rule && e.subject === v.subject);
}

/** Every break of the rules above in these files, known exceptions left out; sorted by path and line. */
export function checkArchitecture(files: readonly SourceFile[]): Violation[] {
  return checkAll(files).filter((v) => !isKnownException(v));
}

function checkAll(files: readonly SourceFile[]): Violation[] {
  const found: Violation[] = [];
  for (const { path, source } of files) {
    const code = blankComments(source);
    for (const ref of importsOf(code)) {
      for (const v of importViolations(path, ref)) found.push({ path, line: ref.line, ...v });
    }
    found.push(...determinismViolations(path, code));
    found.push(...bugSwitchViolations(path, code));
  }
  for (const f of reachThroughFindings(files, NODE_REACH, resolveSpecifier)) found.push({ ...f, rule: 'reach-through' });
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
}

/**
 * Allowances that nothing in these files needs any more (a stale entry would let a later break
 * through unnoticed): built-in and determinism entries, surface modules, NODE_ORDER parts and known exceptions.
 */
export function unusedAllowances(files: readonly SourceFile[]): string[] {
  const byPath = new Map(files.map((f) => [f.path, blankComments(f.source)]));
  const importsByPath = new Map([...byPath].map(([p, code]) => [p, importsOf(code).map((r) => resolveSpecifier(p, r.specifier))]));
  const unused: string[] = [];
  for (const a of BUILT_IN_ALLOWED) {
    for (const m of a.modules) if (!importsByPath.get(a.path)?.includes(m)) unused.push(`BUILT_IN_ALLOWED ${a.path}: ${m}`);
  }
  for (const a of DETERMINISM_ALLOWED) {
    const code = byPath.get(a.path) ?? '';
    for (const t of a.tokens) {
      const pattern = DETERMINISM_TOKENS.find((d) => d.token === t)?.pattern;
      if (!pattern || [...code.matchAll(pattern)].length === 0) unused.push(`DETERMINISM_ALLOWED ${a.path}: ${t}`);
    }
  }
  for (const s of NODE_SURFACE) {
    const used = [...importsByPath].some(([p, targets]) => s.usedBy.test(p) && targets.includes(s.module));
    if (!used) unused.push(`NODE_SURFACE ${s.module}`);
  }
  for (const r of NODE_ORDER) {
    for (const part of r.parts) if (!files.some((f) => part.files.test(f.path))) unused.push(`NODE_ORDER ${r.rank}: ${part.files}`);
  }
  const all = checkAll(files);
  for (const e of KNOWN_EXCEPTIONS) {
    if (!all.some((v) => v.path === e.path && v.rule === e.rule && v.subject === e.subject)) unused.push(`KNOWN_EXCEPTIONS ${e.path}: ${e.rule} ${e.subject}`);
  }
  return unused;
}

export function formatViolation(v: Violation): string {
  return `${v.path}:${v.line} [${v.rule}] ${v.message}`;
}

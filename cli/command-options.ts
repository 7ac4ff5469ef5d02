/**
 * Every option of every qbft-lab command but `node` (node/cli/node-options.ts has Besu's): one
 * table per command, read both by the parser (`parse(args, OPTIONS.sim)`) and by the help
 * (cli/help.ts), so the two cannot disagree. Data only: `qbft-lab --help` must start fast.
 */
import { BESU_VERSIONS } from '../sim/bugs/version-names.ts';
import type { OptionType } from '../node/cli/parse-options.ts';

interface Described {
  description: string;
  /** As shown in the help: "(default: 4)". */
  default?: string;
}

export type OptionDef =
  | (Described & { type: 'boolean' })
  | (Described & { type: 'string'; /** N, FILE, DIR, ... */ value: string; multiple?: true; required?: true });

export type OptionTable = Readonly<Record<string, OptionDef & OptionType>>;

/** What the commands are handed to read their arguments with (cli/main.ts's parse). */
export type Parse = (args: string[], options: OptionTable) => { values: Record<string, unknown>; positionals: string[] };

const json: OptionDef = { type: 'boolean', description: 'print the result as JSON instead of text' };
const seed: OptionDef = { type: 'string', value: 'N', description: 'seed of the simulation: the same seed gives the same run, byte for byte' };
const besuVersion: OptionDef = {
  type: 'string',
  value: 'V',
  description: `run the nodes as this Besu release line, every known bug it had switched on (${BESU_VERSIONS.join(', ')})`,
  default: 'no known bug on',
};
const reportDir: OptionDef = { type: 'string', value: 'DIR', description: 'write an HTML and a Markdown report and the trace of every failed run into DIR' };
const junit: OptionDef = { type: 'string', value: 'FILE', description: 'write a JUnit XML report for CI test reporters (GitLab, Jenkins, GitHub), also when runs fail' };
const trace: OptionDef = { type: 'string', value: 'FILE', description: "write the run's JSON Lines trace (for 'report' and 'tui'); keccak-256 of the file is the run's traceHash" };
const genesisFile: OptionDef = { type: 'string', value: 'FILE', required: true, description: 'the Besu genesis file (JSON)' };

export const OPTIONS = {
  'scenario list': { json },
  'scenario run': {
    all: { type: 'boolean', description: 'run every built-in scenario, one summary line each, instead of one scenario' },
    seed: { ...seed, default: "the scenario's own" },
    'besu-version': { ...besuVersion, default: "the scenario's own, if it names one; else no known bug on" },
    json: { type: 'boolean', description: 'print each run as one JSON object instead of text' },
    junit: { ...junit, description: `${junit.description}: one test case per run` },
    trace: { ...trace, description: `${trace.description} (not with --all)` },
    'report-dir': reportDir,
  },
  sim: {
    validators: { type: 'string', value: 'N', description: 'number of validators, v0..v(N-1), from 1 to 200', default: "4, or the count in --genesis-file's extraData" },
    duration: { type: 'string', value: 'D', description: 'virtual time to run: 500ms, 90s, 10m, 1h; a bare number is seconds', default: '60s' },
    seed: { ...seed, default: '1' },
    'block-period': { type: 'string', value: 'S', description: 'seconds between blocks (blockperiodseconds)', default: "1, or --genesis-file's" },
    'request-timeout': { type: 'string', value: 'S', description: 'round 0 timeout in seconds (requesttimeoutseconds)', default: "2, or --genesis-file's" },
    latency: { type: 'string', value: 'L', description: 'message latency, fixed (20ms) or uniform in a range (10-50ms)', default: '5-30ms' },
    loss: { type: 'string', value: 'P', description: 'probability from 0 to 1 that a message is lost', default: '0' },
    crash: { type: 'string', value: 'vI@T[..T2]', multiple: true, description: 'crash validator vI at time T, restart it at T2 (without ..T2 it stays down); repeatable' },
    pause: { type: 'string', value: 'vI@T1..T2', multiple: true, description: "freeze vI's timers and hold its messages both ways from T1 to T2; repeatable" },
    partition: {
      type: 'string',
      value: "'T1..T2:vA,vB|vC,vD'",
      multiple: true,
      description: 'cut the network into groups (| between groups) from T1 to T2, then heal it; quote it, | is a shell pipe; repeatable',
    },
    byzantine: { type: 'string', value: 'vI:BEHAVIOUR', multiple: true, description: "make vI hostile (a wrong BEHAVIOUR lists them), or 'twin' for a second node with vI's key; repeatable" },
    'genesis-file': { type: 'string', value: 'FILE', description: "a Besu genesis to run: its config, alloc and transitions, its validators replaced by simulated keys (keeping the count)" },
    'early-round-change': { type: 'boolean', description: 'turn on the early round change rule (f+1 round changes for higher rounds move a node to the lowest of them); off, as in Besu now' },
    'no-gossip': { type: 'boolean', description: 'nodes do not forward the consensus messages they receive (each reaches only those its author sent it to)' },
    'max-peers': { type: 'string', value: 'N|all', description: "Besu's --max-peers for every node: a larger network is a partial mesh of that many peers each (all: a full mesh)", default: '25' },
    'wire-layout': { type: 'string', value: 'besu26|legacy', description: 'QBFT message layout the nodes send (legacy: GoQuorum and Besu < 26.1); every node reads both', default: 'besu26' },
    'duplicate-message-limit': { type: 'string', value: 'N', description: "Besu's duplicatemessagelimit: messages remembered to drop repeats", default: '100' },
    json: { type: 'boolean', description: 'print the run as one JSON object instead of text' },
    trace,
    'report-dir': { ...reportDir, description: "write an HTML and a Markdown report and the trace into DIR when the run fails" },
    'besu-version': besuVersion,
  },
  report: {
    seed: { ...seed, default: "the scenario's own (a trace is reported as recorded)" },
    'besu-version': { ...besuVersion, default: "the scenario's own (a trace is reported as recorded)" },
    html: { type: 'string', value: 'FILE', description: 'write the HTML report (one self-contained page) to FILE' },
    md: { type: 'string', value: 'FILE', description: 'write the Markdown report to FILE' },
  },
  tui: {
    seed: { ...seed, default: "the scenario's own (a trace is replayed as recorded)" },
    'besu-version': { ...besuVersion, default: "the scenario's own (a trace is replayed as recorded)" },
  },
  teach: { auto: { type: 'boolean', description: 'print every slide without waiting for a key (as when not on a terminal)' } },
  network: {
    validators: { type: 'string', value: 'N', description: 'number of validators, from 1 to 32', default: '4' },
    'block-period': { type: 'string', value: 'S', description: 'seconds between blocks (blockperiodseconds)', default: '1' },
    'empty-block-period': { type: 'string', value: 'S', description: "with no transaction waiting, a block only every S seconds (Besu's emptyblockperiodseconds; npm start: 10)", default: '0: a block every block period' },
    'request-timeout': { type: 'string', value: 'S', description: 'round 0 timeout in seconds (requesttimeoutseconds)', default: '4' },
    'data-path': { type: 'string', value: 'DIR', description: 'where the genesis and each node\'s store are kept; a restarted network resumes its chain', default: 'build/network' },
    'base-port': { type: 'string', value: 'P', description: 'JSON-RPC HTTP port of node 0 (WebSocket P+1, GraphQL P+2); node i adds 10*i; 0 picks free ports', default: '8545, or the next free range when it is taken' },
    'p2p-base-port': { type: 'string', value: 'P', description: 'P2P port of node 0; node i listens on P+i', default: '30303, or the next free range when it is taken; any free one with --base-port 0' },
    'chain-id': { type: 'string', value: 'ID', description: 'chain id of the generated genesis', default: '1337' },
    fork: { type: 'string', value: 'NAME', description: 'newest hardfork of the generated genesis, from block 0: london, shanghai, cancun, prague or osaka', default: 'osaka' },
    duration: { type: 'string', value: 'S', description: 'stop after S seconds', default: 'run until Ctrl-C' },
    'rpc-api': { type: 'string', value: 'LIST', description: 'JSON-RPC APIs every node enables', default: 'ETH,NET,WEB3,QBFT,TXPOOL; PRIV,EEA added with --privacy' },
    'host-allowlist': { type: 'string', value: 'LIST', description: 'host names the JSON-RPC endpoints answer', default: 'localhost,127.0.0.1' },
    'rpc-http-cors-origins': { type: 'string', value: 'LIST', description: 'web origins allowed to call JSON-RPC from a browser', default: 'none' },
    'metrics-enabled': { type: 'boolean', description: 'serve Prometheus metrics on the base port + 1000 (9545 for node 0), + 10*i' },
    'single-process': { type: 'boolean', description: 'run every validator on one event loop, connected in process, instead of one node process each' },
    privacy: { type: 'boolean', description: 'enable privacy on every validator, each with its own privacy key pair' },
  },
  fuzz: {
    runs: { type: 'string', value: 'N', description: 'number of random cases, from 1 to 1000000', default: '100' },
    seed: { type: 'string', value: 'S', description: 'campaign seed: the same seed runs the same cases', default: '1' },
    jobs: { type: 'string', value: 'N', description: 'worker processes (1 runs the cases in this process); the results are those of --jobs 1', default: 'the number of CPU cores' },
    shard: { type: 'string', value: 'i/k', description: 'run only the cases j with j % k = i (the k shards together are the whole campaign)', default: 'every case' },
    bug: { type: 'string', value: 'ID', description: "hunt one known bug: its switch on, stop at the first find (see 'qbft-lab bugs list')" },
    'besu-version': { ...besuVersion, description: 'hunt the known bugs of this Besu release line together' },
    json: { type: 'boolean', description: 'print the campaign report as JSON instead of text' },
    junit: { ...junit, description: `${junit.description}: one test case per fuzz case` },
    'failure-dir': { type: 'string', value: 'DIR', description: 'where shrunk failing cases are written as replayable scenario files', default: 'the current directory' },
    'report-dir': { ...reportDir, description: 'replay every shrunk failure and write its HTML and Markdown report and trace into DIR' },
  },
  'bugs list': { json },
  'bugs check': { json, junit: { ...junit, description: `${junit.description}: one test case per bug id` } },
  'genesis inspect': { 'genesis-file': genesisFile, json },
  check: {
    'genesis-file': genesisFile,
    duration: { type: 'string', value: 'D', description: 'simulated time of each fault case (500ms, 90s, 10m, 1h; at most 7 days)', default: 'long enough for every case and the last transition' },
    seed: { ...seed, default: '1' },
    'besu-version': besuVersion,
    json,
    'report-dir': { ...reportDir, description: 'write the HTML and Markdown report and the trace of each failing case into DIR' },
  },
  rehearse: {
    'genesis-file': { ...genesisFile, value: 'OLD', description: 'the genesis file the network runs now' },
    'new-genesis': { type: 'string', value: 'NEW', required: true, description: 'the genesis file after the change (same genesis block and chain id)' },
    'at-block': { type: 'string', value: 'B', description: "block at which every node is stopped (give your network's height)", default: '10' },
    'restart-window': { type: 'string', value: 'D', description: 'time in which the nodes are restarted one by one with NEW', default: '30s' },
    stragglers: { type: 'string', value: 'K', description: 'restart the last K nodes only after the window', default: '0' },
    'left-behind': { type: 'string', value: 'NODE,...|COUNT', description: 'restart these nodes (v3, a validator address, or a count of the last ones) with OLD still in place', default: 'none' },
    'node-checks': { type: 'string', value: 'besu|qbft-lab', description: "besu: nodes start whatever NEW does to their stored blocks, as Besu's do; qbft-lab: they refuse", default: 'besu' },
    seed: { ...seed, default: '1' },
    'besu-version': besuVersion,
    json,
    'report-dir': { ...reportDir, description: "write the rehearsal's HTML and Markdown report and trace into DIR" },
  },
  'operator generate-blockchain-config': {
    'config-file': { type: 'string', value: 'F', required: true, description: "Besu's blockchain config file: a genesis and how many validator keys to generate (or which to use)" },
    to: { type: 'string', value: 'DIR', required: true, description: 'an empty or new directory for genesis.json and keys/<address>/' },
    'genesis-file-name': { type: 'string', value: 'N', description: 'file name of the genesis in DIR', default: 'genesis.json' },
    'private-key-file-name': { type: 'string', value: 'N', description: "file name of each node's private key", default: 'key.priv' },
    'public-key-file-name': { type: 'string', value: 'N', description: "file name of each node's public key", default: 'key.pub' },
  },
  rlp: {
    type: { type: 'string', value: 'QBFT_EXTRA_DATA|IBFT_EXTRA_DATA', description: 'the extraData layout', default: 'IBFT_EXTRA_DATA, as Besu' },
    from: { type: 'string', value: 'F', description: 'read the input from F: a JSON array of validator addresses (encode) or hex (decode)', default: 'standard input' },
    to: { type: 'string', value: 'F', description: 'write the output to F', default: 'standard output' },
  },
  /** Parsed by node/cli/blocks-import.ts (with every `node` option besides); listed here for the help. */
  'blocks import': {
    from: { type: 'string', value: 'FILE[,FILE]', required: true, description: 'files of concatenated RLP blocks, imported in order' },
    format: { type: 'string', value: 'RLP', description: 'file format (only RLP)', default: 'RLP' },
    'skip-pow-validation-enabled': { type: 'boolean', description: "accepted for Besu's sake: proof of work is never checked here" },
  },
} as const satisfies Record<string, OptionTable>;

export type CommandName = keyof typeof OPTIONS;

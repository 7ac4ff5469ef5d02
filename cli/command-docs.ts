/**
 * What `qbft-lab --help` and `qbft-lab COMMAND --help` say about each command besides its options
 * (those are cli/command-options.ts's tables): a one-line summary, the arguments, examples that
 * paste into a shell as printed (cli/help.ts quotes them) and notes.
 */
import type { CommandName } from './command-options.ts';

export interface CommandDoc {
  /** The words after 'qbft-lab'; also the key of the command's option table. */
  name: CommandName | 'node';
  /** Arguments other than the options, before them in the usage line ('<name|file.json>'). */
  args?: string;
  /** What comes after the options in the usage line ('[-- NODE-OPTIONS...]'). */
  tail?: string;
  summary: string;
  /** Each the argv after 'qbft-lab'. */
  examples: string[][];
  notes?: string[];
}

export interface CommandGroup {
  /** The first word: 'scenario', 'sim'. */
  command: string;
  section: 'Simulator' | 'Operators' | 'Live network';
  /** The command's line in the overview. */
  overview: string;
  docs: CommandDoc[];
}

const SCENARIO: CommandGroup = {
  command: 'scenario',
  section: 'Simulator',
  overview: 'list the built-in scenarios; run one, a scenario file or all of them, and check them',
  docs: [
    { name: 'scenario list', summary: 'List the built-in scenarios with their descriptions.', examples: [['scenario', 'list']] },
    {
      name: 'scenario run',
      args: '(<name|file.json> | --all)',
      summary: 'Run a built-in scenario, a scenario .json file (a shrunk fuzz failure is one) or every built-in one, under the invariant checkers.',
      examples: [
        ['scenario', 'run', 'proposer-crash', '--seed', '7'],
        ['scenario', 'run', '--all', '--junit', 'scenarios.xml', '--report-dir', 'reports'],
      ],
      notes: ['Exit status: 0 when every run is ok, 1 when a run fails its checks, 2 on a usage error or a --junit FILE that cannot be written.'],
    },
  ],
};

const SIM: CommandGroup = {
  command: 'sim',
  section: 'Simulator',
  overview: 'run a network described by flags (faults, latency, Byzantine nodes) and check it',
  docs: [
    {
      name: 'sim',
      summary: 'Run a network described by flags in the simulator (virtual time, seeded) and check it. Times: 500ms, 90s, 10m, 1h; a bare number is seconds.',
      examples: [
        ['sim', '--validators', '7', '--duration', '10m', '--crash', 'v1@30s..90s'],
        ['sim', '--partition', '20s..40s:v0,v1,v2|v3', '--latency', '10-50ms', '--trace', 'run.jsonl'],
      ],
      notes: ['Exit status: 0 when the run is ok, 1 when it fails its checks, 2 on a usage error.'],
    },
  ],
};

const FUZZ: CommandGroup = {
  command: 'fuzz',
  section: 'Simulator',
  overview: 'random clusters and fault schedules; failures are shrunk to replayable scenario files',
  docs: [
    {
      name: 'fuzz',
      summary: 'A seeded property-test campaign over random clusters and fault schedules; each failure is shrunk and written as a scenario file to replay.',
      examples: [
        ['fuzz', '--runs', '500', '--seed', '42'],
        ['fuzz', '--bug', 'besu-6613', '--runs', '200', '--junit', 'fuzz.xml'],
      ],
      notes: [
        "With --bug ID (or --besu-version V) the campaign runs with the bug's switch on and stops at the first find: a failure one of the bug's checkers reports whose shrunk case passes with the switch off. A validation rule's planted switch, plant-skip-RULE, is hunted the same way.",
        "Exit status: 0 when no case fails, or with --bug when the bug is found (the finding's JUnit case passes, and one more case, 'bug ID found', fails when it is not); 1 otherwise; 2 on a usage error.",
      ],
    },
  ],
};

const BUGS: CommandGroup = {
  command: 'bugs',
  section: 'Simulator',
  overview: "Besu's known consensus bugs: list them, or show each failing with its switch on",
  docs: [
    { name: 'bugs list', summary: 'List the known-bug switches (simulation only): id, symptom, title, release lines affected, link.', examples: [['bugs', 'list']] },
    {
      name: 'bugs check',
      args: '[ID...]',
      summary: "Show each bug's scenario failing, caught by its checkers, with its switch on, and passing with it off (every bug when no ID is given).",
      examples: [['bugs', 'check'], ['bugs', 'check', 'besu-6613', '--junit', 'bugs.xml']],
      notes: ['Exit status: 0 when every bug is shown, 1 when one cannot be, 2 on a usage error.'],
    },
  ],
};

const REPORT: CommandGroup = {
  command: 'report',
  section: 'Simulator',
  overview: 'HTML or Markdown report of a recorded trace or of a scenario run now',
  docs: [
    {
      name: 'report',
      args: '<trace.jsonl|name|file.json>',
      summary: 'Write the HTML and/or Markdown report of a recorded trace, or of a scenario (built-in or file) run now.',
      examples: [
        ['report', 'proposer-crash', '--html', 'proposer-crash.html'],
        ['report', 'run.jsonl', '--md', 'run.md'],
      ],
    },
  ],
};

const TUI: CommandGroup = {
  command: 'tui',
  section: 'Simulator',
  overview: 'replay a run in the terminal',
  docs: [
    {
      name: 'tui',
      args: '<trace.jsonl|name|file.json>',
      summary: 'Replay a recorded trace, or a scenario run now, on virtual time in the terminal (keys: ? in the UI); plain text when not on a terminal.',
      examples: [['tui', 'proposer-crash'], ['tui', 'run.jsonl']],
    },
  ],
};

const TEACH: CommandGroup = {
  command: 'teach',
  section: 'Simulator',
  overview: "guided lessons on QBFT, explained with a run's own numbers",
  docs: [
    {
      name: 'teach',
      args: '[round-timing|round-change|votes|transitions]',
      summary: "Walk through a lesson's scenarios, slide by slide, each key moment explained with the run's own numbers (Enter or space: next, b: back, q: quit); without a lesson, the whole course.",
      examples: [['teach', 'round-change'], ['teach', '--auto']],
    },
  ],
};

const CHECK: CommandGroup = {
  command: 'check',
  section: 'Operators',
  overview: 'a battery of fault cases sized to your genesis file',
  docs: [
    {
      name: 'check',
      summary: 'A battery of fault cases sized to your genesis: f crashed, proposer crash, partition, wiped restart, votes, each transition.',
      examples: [
        ['check', '--genesis-file', 'genesis.json'],
        ['check', '--genesis-file', 'genesis.json', '--duration', '10m', '--report-dir', 'reports'],
      ],
      notes: ['Exit status: 0 when every case passes, 1 when one fails, 2 on a usage error or a genesis that cannot be simulated.'],
    },
  ],
};

const REHEARSE: CommandGroup = {
  command: 'rehearse',
  section: 'Operators',
  overview: 'rehearse a configuration change (a new genesis file) before you make it',
  docs: [
    {
      name: 'rehearse',
      summary: "Besu's procedure for a configuration change, simulated on your files: run on OLD to a block, stop every node, restart each with NEW; then the verdict.",
      examples: [
        ['rehearse', '--genesis-file', 'old-genesis.json', '--new-genesis', 'new-genesis.json'],
        ['rehearse', '--genesis-file', 'old-genesis.json', '--new-genesis', 'new-genesis.json', '--left-behind', 'v3', '--restart-window', '10s'],
      ],
      notes: ['The verdict is one of ok|stall|fork|forked-off|violation (an invariant checker reported a violation), with the block and the nodes where it happened.', 'Above block 64 the run starts from the blocks before --at-block, made and checked without the message exchange (up to block 1,900,000; 20,000 when the old genesis changes the state every block, as a block reward does).', 'Exit status: 0 for verdict ok, 1 for stall, fork, forked-off or violation, 2 on a usage error (a NEW that is a new chain is one).'],
    },
  ],
};

const GENESIS: CommandGroup = {
  command: 'genesis',
  section: 'Operators',
  overview: 'hash, validators and options of a genesis file',
  docs: [{ name: 'genesis inspect', summary: 'Print the genesis block hash, the validators and the QBFT options of a genesis file.', examples: [['genesis', 'inspect', '--genesis-file', 'genesis.json']] }],
};

const OPERATOR: CommandGroup = {
  command: 'operator',
  section: 'Operators',
  overview: "Besu's generate-blockchain-config: a genesis and validator keys",
  docs: [
    {
      name: 'operator generate-blockchain-config',
      summary: "Besu's command of that name: writes DIR/genesis.json with the validators in extraData and DIR/keys/<address>/ with each node's key files.",
      examples: [['operator', 'generate-blockchain-config', '--config-file', 'qbftConfigFile.json', '--to', 'networkFiles']],
    },
  ],
};

const RLP: CommandGroup = {
  command: 'rlp',
  section: 'Operators',
  overview: "encode or decode QBFT / IBFT 2.0 extraData, as 'besu rlp'",
  docs: [
    {
      name: 'rlp',
      args: 'encode|decode',
      summary: "Encode a JSON array of validator addresses as extraData, or decode extraData's hex to the addresses, as 'besu rlp'.",
      examples: [
        ['rlp', 'encode', '--type=QBFT_EXTRA_DATA', '--from', 'validators.json'],
        ['rlp', 'decode', '--type=QBFT_EXTRA_DATA', '--from', 'extra-data.hex'],
      ],
    },
  ],
};

const NETWORK: CommandGroup = {
  command: 'network',
  section: 'Live network',
  overview: 'a local network of N validators on the real clock, with JSON-RPC',
  docs: [
    {
      name: 'network',
      tail: '[-- NODE-OPTIONS...]',
      summary: "N validators on the real clock, each a 'qbft-lab node' process (unless --single-process) with its own store and JSON-RPC; options after -- go to every node.",
      examples: [
        ['network', '--validators', '4', '--block-period', '2'],
        ['network', '--base-port', '9545', '--p2p-base-port', '40303', '--rpc-http-cors-origins', '*'],
        ['network', '--', '--min-gas-price', '0'],
      ],
      notes: ["The validator keys are the simulator's deterministic test keys: never use this network for anything of value."],
    },
  ],
};

const NODE: CommandGroup = {
  command: 'node',
  section: 'Live network',
  overview: "one node with Besu's option names (also from a TOML --config-file)",
  docs: [
    {
      name: 'node',
      args: '--genesis-file F',
      summary: "One live QBFT node with Besu's option names, serving until SIGINT or SIGTERM. 'qbft-lab node --version' prints the client version, as 'besu --version' does.",
      examples: [['node', '--genesis-file', 'genesis.json', '--data-path', 'data/node1', '--rpc-http-enabled']],
    },
  ],
};

const BLOCKS: CommandGroup = {
  command: 'blocks',
  section: 'Live network',
  overview: "import files of RLP blocks into a node's data path, as 'besu blocks import'",
  docs: [
    {
      name: 'blocks import',
      args: '--genesis-file F --data-path D',
      summary: "Validate, execute and store files of concatenated RLP blocks into a node's data path, as 'besu blocks import'; any 'qbft-lab node' option may be given.",
      examples: [['blocks', 'import', '--genesis-file', 'genesis.json', '--data-path', 'data/node1', '--from', 'blocks.rlp']],
    },
  ],
};

export const COMMAND_GROUPS: readonly CommandGroup[] = [SCENARIO, SIM, FUZZ, BUGS, REPORT, TUI, TEACH, CHECK, REHEARSE, GENESIS, OPERATOR, RLP, NETWORK, NODE, BLOCKS];

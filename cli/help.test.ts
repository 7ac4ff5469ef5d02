/** Per-command help (options, defaults, examples that paste) and the parser's one-line messages. */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { captureIo } from './capture-io.ts';
import { COMMAND_GROUPS, type CommandDoc } from './command-docs.ts';
import { OPTIONS } from './command-options.ts';
import { commandLine, shellQuote } from './help.ts';
import { main } from './main.ts';

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = captureIo();
  const code = await main(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

const DOCS: CommandDoc[] = COMMAND_GROUPS.flatMap((g) => g.docs);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The words that reach a command's option parser: its name, and a subcommand word it needs first ('rlp encode'). */
function commandWords(doc: CommandDoc): string[] {
  const words = doc.name.split(' ');
  return /^[a-z|]+$/.test(doc.args ?? '') ? [...words, doc.args!.split('|')[0]!] : words;
}

/** How bash splits a command line: qbft-lab as a function printing its arguments, NUL-terminated. */
function bashWords(line: string): string[] {
  const out = execFileSync('bash', ['-c', `qbft-lab() { printf '%s\\0' "$@"; }\n${line}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

test('each command --help has a usage line, a summary, an option table with every option, its value and default, and examples', async (t) => {
  for (const doc of DOCS) {
    if (doc.name === 'node') continue;
    const { code, stdout } = await run([...doc.name.split(' '), '--help']);
    t.is(code, 0, doc.name);
    t.true(stdout.startsWith(`Usage:\n  qbft-lab ${doc.name} `), doc.name);
    t.true(stdout.includes(doc.summary.split(' ').slice(0, 4).join(' ')), `${doc.name}: summary`);
    const flat = stdout.replace(/\n {20,}/g, ' ');
    for (const [name, o] of Object.entries(OPTIONS[doc.name])) {
      const form = o.type === 'boolean' ? `--${name}` : `--${name} ${o.value}`;
      const defaultText = o.default === undefined ? '' : ` \\(default: ${escape(o.default)}\\)`;
      t.regex(flat, new RegExp(`^  ${escape(form)}\\s+${escape(o.description)}.*${defaultText}$`, 'm'), `${doc.name} ${name}`);
    }
    t.regex(stdout, /^Examples:\n {2}qbft-lab /m, doc.name);
  }
  const sim = await run(['sim', '--help']);
  const simFlat = sim.stdout.replace(/\n {20,}/g, ' ');
  t.regex(simFlat, /^ {2}--validators N +number of validators, v0\.\.v\(N-1\), from 1 to 200 \(default: 4, or the count in --genesis-file's extraData\)$/m);
  t.regex(simFlat, /^ {2}--duration D +virtual time to run: .* \(default: 60s\)$/m);
  t.regex(sim.stdout, /\[--partition 'T1\.\.T2:vA,vB\|vC,vD'\]/, 'the usage shows the partition quoted, as it must be typed');
});

test("a command's help is the same through 'qbft-lab help COMMAND'; a group without a subcommand shows each", async (t) => {
  t.is((await run(['help', 'sim'])).stdout, (await run(['sim', '--help'])).stdout);
  t.is((await run(['help', 'scenario', 'run'])).stdout, (await run(['scenario', 'run', '--help'])).stdout);
  const scenario = await run(['scenario', '--help']);
  t.regex(scenario.stdout, /^ {2}qbft-lab scenario list \[--json\]$/m);
  t.regex(scenario.stdout, /^ {2}qbft-lab scenario run \(<name\|file\.json> \| --all\) \[--seed N\]/m);
  t.notRegex((await run(['scenario', 'run', '--help'])).stdout, /scenario list/);
  const unknown = await run(['help', 'frobnicate']);
  t.is(unknown.code, 2);
  t.is(unknown.stderr, "qbft-lab: unknown command 'frobnicate' (see 'qbft-lab --help')\n");
});

test('the overview is one line per command and points at COMMAND --help', async (t) => {
  const { code, stdout } = await run(['--help']);
  t.is(code, 0);
  for (const g of COMMAND_GROUPS) t.regex(stdout, new RegExp(`^ {2}${escape(g.command)}\\b`, 'm'), g.command);
  t.true(stdout.split('\n').length < 40, 'short');
  t.true(stdout.includes("'qbft-lab COMMAND --help'"));
  t.notRegex(stdout, /--validators|--partition/, 'options are in the command help, not the overview');
  t.is((await run(['help'])).stdout, stdout);
});

test('the examples paste into bash as printed, and each parses with its command', async (t) => {
  for (const doc of DOCS) {
    const help = (await run([...doc.name.split(' '), '--help'])).stdout;
    for (const argv of doc.examples) {
      const line = commandLine(argv);
      t.true(help.includes(`\n  ${line}\n`), `${doc.name} prints ${line}`);
      t.deepEqual(bashWords(line), argv, line);
      // A bad option after the example's own (before a '--', whose words go to the nodes) fails on
      // that option alone: everything the example gives was accepted.
      const end = argv.indexOf('--');
      const probe = end === -1 ? [...argv, '--not-an-option'] : [...argv.slice(0, end), '--not-an-option', ...argv.slice(end)];
      const r = await run(probe);
      t.is(r.code, 2, line);
      t.regex(r.stderr, /Unknown option '--not-an-option'/, line);
    }
  }
  const sim = (await run(['sim', '--help'])).stdout;
  t.true(sim.includes("--partition '20s..40s:v0,v1,v2|v3'"), 'the partition example is quoted');
});

test('shellQuote leaves plain words alone and quotes anything a shell would read otherwise', (t) => {
  const words = ['v1@30s..90s', '--type=QBFT_EXTRA_DATA', "it's", 'a b', '*', '$HOME', 'a|b', '~', '{a,b}', '[x]', '', '!x', 'x;y', '"q"'];
  t.deepEqual(bashWords(['qbft-lab', ...words.map(shellQuote)].join(' ')), words);
  t.is(shellQuote('v1@30s..90s'), 'v1@30s..90s');
  t.is(shellQuote('20s..40s:v0,v1|v3'), "'20s..40s:v0,v1|v3'");
});

test("every option of a command's table is accepted by its parser, and an option not in it is refused", async (t) => {
  for (const doc of DOCS) {
    if (doc.name === 'node') continue;
    // blocks import needs --from, and checks --format, before it reads the node options.
    const words = [...commandWords(doc), ...(doc.name === 'blocks import' ? ['--from', 'blocks.rlp'] : [])];
    for (const [name, o] of Object.entries(OPTIONS[doc.name])) {
      const given = o.type === 'boolean' ? [`--${name}`] : [`--${name}`, name === 'format' ? 'RLP' : 'x'];
      const r = await run([...words, ...given, '--not-an-option']);
      t.is(r.code, 2, `${doc.name} --${name}`);
      t.regex(r.stderr, /Unknown option '--not-an-option'/, `${doc.name} --${name}`);
    }
  }
});

test("parse errors are one line of ours naming the option, exit 2, for every command", async (t) => {
  const cases: Array<[string[], string]> = [
    [['sim', '--validators', '-3'], "qbft-lab: --validators: '-3' must be an integer from 1 to 200 (see 'qbft-lab sim --help')"],
    [['network', '--validators', '-3'], "qbft-lab: --validators: '-3' must be an integer from 1 to 32 (see 'qbft-lab network --help')"],
    [['sim', '--json=1'], "qbft-lab: --json takes no value (write --json alone, not --json=1) (see 'qbft-lab sim --help')"],
    [['scenario', 'run', 'happy-path', '--seed'], "qbft-lab: --seed needs a value (--seed N) (see 'qbft-lab scenario run --help')"],
    [['sim', '--trace', '--json'], "qbft-lab: --trace needs a value (--trace FILE) before '--json' (write --trace=--json for a value that starts with '-') (see 'qbft-lab sim --help')"],
    [['check', '--genesis-file'], "qbft-lab: check: --genesis-file needs a value (--genesis-file FILE) (see 'qbft-lab check --help')"],
    [['rehearse', '--json=yes'], "qbft-lab: rehearse: --json takes no value (write --json alone, not --json=yes) (see 'qbft-lab rehearse --help')"],
    [['fuzz', '--runs', '-3'], "qbft-lab: --runs: '-3' must be an integer from 1 to 1000000 (see 'qbft-lab fuzz --help')"],
    [['node', 'extra'], "qbft-lab: unexpected argument 'extra' (see 'qbft-lab node --help')"],
    [['node', '--rpc-http-port'], "qbft-lab: --rpc-http-port needs a value (--rpc-http-port VALUE) (see 'qbft-lab node --help')"],
    [['node', '--rpc-http-enabled=1'], "qbft-lab: --rpc-http-enabled takes no value (write --rpc-http-enabled alone, not --rpc-http-enabled=1) (see 'qbft-lab node --help')"],
    [['bugs', 'check', '--jsn'], "qbft-lab: Unknown option '--jsn' (did you mean '--json'?) (see 'qbft-lab bugs check --help')"],
  ];
  for (const [args, line] of cases) {
    const r = await run(args);
    t.is(r.code, 2, args.join(' '));
    t.is(r.stdout, '', args.join(' '));
    t.is(r.stderr, `${line}\n`, args.join(' '));
  }
  // Every command that reads options: a missing value and a value given to a flag, each one line.
  for (const doc of DOCS) {
    if (doc.name === 'node' || doc.name === 'blocks import') continue;
    const table = Object.entries(OPTIONS[doc.name]);
    const text = table.find(([, o]) => o.type === 'string');
    const flag = table.find(([, o]) => o.type === 'boolean');
    const probes = [...(text ? [[`--${text[0]}`]] : []), ...(flag ? [[`--${flag[0]}=1`]] : [])];
    for (const probe of probes) {
      const r = await run([...commandWords(doc), ...probe]);
      t.is(r.code, 2, `${doc.name} ${probe}`);
      t.regex(r.stderr, /^qbft-lab: .*(needs a value|takes no value).*\(see 'qbft-lab [a-z -]+--help'\)\n$/, `${doc.name} ${probe}`);
      t.notRegex(r.stderr, /ambiguous|after '--'|Did you forget|To specify/);
    }
  }
});

test('a negative number is taken as the value: --seed -5 runs with seed -5', async (t) => {
  const r = await run(['sim', '--duration', '2s', '--seed', '-5', '--json']);
  t.is(r.code, 0, r.stderr);
  t.is(JSON.parse(r.stdout).seed, -5);
});

test("the defaults the help states are the code's", async (t) => {
  const { NETWORK_DEFAULT_APIS, NEWEST_FORK } = await import('./network-command.ts');
  t.true(OPTIONS.network['rpc-api'].default.startsWith(`${NETWORK_DEFAULT_APIS};`));
  t.is<string, string>(OPTIONS.network.fork.default, NEWEST_FORK);
  const { DEFAULT_AT_BLOCK, DEFAULT_RESTART_WINDOW_MS } = await import('../sim/operator/rehearsal.ts');
  t.is<string, string>(OPTIONS.rehearse['at-block'].default, String(DEFAULT_AT_BLOCK));
  t.is<string, string>(OPTIONS.rehearse['restart-window'].default, `${DEFAULT_RESTART_WINDOW_MS / 1000}s`);
  const { DEFAULT_FILE_NAMES } = await import('../node/cli/blockchain-config-output.ts');
  const operator = OPTIONS['operator generate-blockchain-config'];
  t.deepEqual([operator['genesis-file-name'].default, operator['private-key-file-name'].default, operator['public-key-file-name'].default], [DEFAULT_FILE_NAMES.genesis, DEFAULT_FILE_NAMES.privateKey, DEFAULT_FILE_NAMES.publicKey]);
  const { simScenario } = await import('./sim-scenario.ts');
  const sim = simScenario({});
  t.true(OPTIONS.sim.validators.default.startsWith(`${sim.validators},`));
  t.is<string, string>(OPTIONS.sim.duration.default, `${sim.durationMs / 1000}s`);
  t.is<string, string>(OPTIONS.sim.seed.default, String(sim.seed));
  const { buildSimGenesis } = await import('../sim/genesis-builder.ts');
  const qbft = (buildSimGenesis({ validators: [], startTimeSeconds: 0 }) as { config: { qbft: Record<string, number> } }).config.qbft;
  t.true(OPTIONS.sim['block-period'].default.startsWith(`${qbft.blockperiodseconds},`));
  t.true(OPTIONS.sim['request-timeout'].default.startsWith(`${qbft.requesttimeoutseconds},`));
  const { LESSONS } = await import('../reports/teach/lessons.ts');
  t.is(COMMAND_GROUPS.find((g) => g.command === 'teach')!.docs[0]!.args, `[${LESSONS.map((l) => l.name).join('|')}]`);
  const { IMPORT_OPTIONS } = await import('../node/cli/blocks-import.ts');
  t.deepEqual(Object.keys(OPTIONS['blocks import']).sort(), [...IMPORT_OPTIONS].sort(), "blocks import's own options, parsed in node/cli/blocks-import.ts");
});

test("docs/cli.md's usage block is the help's own usage lines, so the page cannot drift from the parser", async (t) => {
  const { readFileSync } = await import('node:fs');
  const { allSynopses } = await import('./help.ts');
  const page = readFileSync(new URL('../docs/cli.md', import.meta.url), 'utf8');
  const block = /```\n(qbft-lab scenario list[^]*?)\nqbft-lab --version \| -V\n```/.exec(page)?.[1];
  t.is(block, allSynopses().join('\n'), 'regenerate the block from allSynopses() in cli/help.ts');
});

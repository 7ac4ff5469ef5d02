/**
 * The help texts: `qbft-lab --help` (one line per command) and `qbft-lab COMMAND --help` (usage,
 * summary, every option of the command's table with its value, description and default, examples
 * quoted so that they paste into a POSIX shell, notes).
 */
import { COMMAND_GROUPS, type CommandDoc, type CommandGroup } from './command-docs.ts';
import { OPTIONS, type OptionDef, type OptionTable } from './command-options.ts';

const WIDTH = 100;
/** Where option descriptions start. */
const DESCRIPTION_COLUMN = 34;

/** `word` as a POSIX shell reads it back: single-quoted unless it has only characters no shell treats specially. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A printed command line: 'qbft-lab' and the argv, quoted. */
export function commandLine(argv: readonly string[]): string {
  return ['qbft-lab', ...argv.map(shellQuote)].join(' ');
}

/** Words joined into lines of at most `width`, every line after the first indented by `indent` spaces. */
function wrap(words: readonly string[], firstPrefix: string, indent: number, width = WIDTH): string[] {
  const lines: string[] = [];
  let line = firstPrefix;
  for (const word of words) {
    const bare = line.trim() === '' || line === firstPrefix;
    if (!bare && line.length + 1 + word.length > width) {
      lines.push(line);
      line = ' '.repeat(indent) + word;
    } else line += (bare ? '' : ' ') + word;
  }
  lines.push(line);
  return lines;
}

function optionTable(doc: CommandDoc): OptionTable {
  return doc.name === 'node' ? {} : OPTIONS[doc.name];
}

function optionForm(name: string, o: OptionDef): string {
  return o.type === 'boolean' ? `--${name}` : `--${name} ${o.value}`;
}

/** The usage line: arguments, required options, then every other option in brackets. */
function synopsis(doc: CommandDoc): string[] {
  const options = Object.entries(optionTable(doc)).filter(([name]) => !(doc.args ?? '').includes(`--${name}`));
  const required = options.filter(([, o]) => o.type === 'string' && o.required).map(([n, o]) => optionForm(n, o));
  const optional = options.filter(([, o]) => !(o.type === 'string' && o.required)).map(([n, o]) => `[${optionForm(n, o)}]`);
  const head = `  qbft-lab ${doc.name}`;
  const words = [...(doc.args ? [doc.args] : []), ...required, ...optional, ...(doc.name === 'node' ? ['[options]'] : []), ...(doc.tail ? [doc.tail] : [])];
  // Continuation lines align under the first argument, unless the command's name is long.
  return wrap(words, `${head} `, head.length < 30 ? head.length + 1 : 6);
}

function describe(o: OptionDef): string {
  const required = o.type === 'string' && o.required ? ' (required)' : '';
  return `${o.description}${required}${o.default === undefined ? '' : ` (default: ${o.default})`}`;
}

function optionLines(form: string, description: string): string[] {
  const left = `  ${form}`;
  const words = description.split(' ');
  if (left.length + 2 > DESCRIPTION_COLUMN) return [left, ...wrap(words, ' '.repeat(DESCRIPTION_COLUMN), DESCRIPTION_COLUMN)];
  return wrap(words, left.padEnd(DESCRIPTION_COLUMN), DESCRIPTION_COLUMN);
}

/** Every command's usage lines, as docs/cli.md lists them (a test holds that page to these). */
export function allSynopses(): string[] {
  return COMMAND_GROUPS.flatMap((group) => group.docs.flatMap((doc) => synopsis(doc).map((line) => line.slice(2))));
}

/** The help of one command (or subcommand). */
async function docHelp(doc: CommandDoc): Promise<string> {
  const lines = ['Usage:', ...synopsis(doc), '', ...wrap(doc.summary.split(' '), '', 0), ''];
  if (doc.name === 'node') lines.push(...(await nodeOptionLines()));
  else {
    lines.push('Options:');
    for (const [name, o] of Object.entries(optionTable(doc))) lines.push(...optionLines(optionForm(name, o), describe(o)));
  }
  lines.push(...optionLines('-h, --help', 'show this help'));
  lines.push('', 'Examples:', ...doc.examples.map((argv) => `  ${commandLine(argv)}`));
  for (const note of doc.notes ?? []) lines.push('', ...wrap(note.split(' '), '', 0));
  return lines.join('\n');
}

/** `node`'s options are Besu's (node/cli/node-options.ts), listed with their defaults. */
async function nodeOptionLines(): Promise<string[]> {
  const { NODE_OPTIONS } = await import('../node/cli/node-options.ts');
  const out = ['Options (Besu names; also as keys of a TOML --config-file):'];
  for (const [name, spec] of Object.entries(NODE_OPTIONS)) {
    const def = 'default' in spec ? ` (default: ${Array.isArray(spec.default) ? spec.default.join(',') || 'none' : String(spec.default)})` : '';
    out.push(`  --${name}${spec.kind === 'boolean' ? '' : spec.kind === 'list' ? ' A,B,...' : spec.kind === 'int' ? ' N' : ' VALUE'}${def}`);
  }
  return out;
}

/** The word that picks a doc of a group of several: 'run' for 'scenario run'. */
function subcommand(group: CommandGroup, doc: CommandDoc): string {
  return doc.name.slice(group.command.length).trim();
}

/** A command's help ('qbft-lab scenario --help': each subcommand; 'qbft-lab scenario run --help': run's), or undefined for a command qbft-lab does not have. */
export async function commandHelp(command: string, args: readonly string[] = []): Promise<string | undefined> {
  const group = COMMAND_GROUPS.find((g) => g.command === command);
  if (group === undefined) return undefined;
  const picked = group.docs.length > 1 ? group.docs.filter((d) => subcommand(group, d) === args[0]) : [];
  const docs = picked.length > 0 ? picked : group.docs;
  return (await Promise.all(docs.map(docHelp))).join('\n\n');
}

/** The subcommand of `command` that `word` names, if any (for the pointer to its help). */
export function subcommandOf(command: string, word: string | undefined): string | undefined {
  const group = COMMAND_GROUPS.find((g) => g.command === command);
  if (group === undefined || group.docs.length < 2 || word === undefined) return undefined;
  return group.docs.some((d) => subcommand(group, d) === word) ? word : undefined;
}

/** Every command word, for "did you mean". */
export const COMMAND_WORDS: readonly string[] = [...COMMAND_GROUPS.map((g) => g.command), 'help'];

/** `qbft-lab --help`: one line per command. */
export function overview(): string {
  // 'scenario list|run'; 'rlp encode|decode' (bare subcommand words as arguments); 'sim'.
  const label = (g: CommandGroup) => {
    if (g.docs.length > 1) return `${g.command} ${g.docs.map((d) => subcommand(g, d)).join('|')}`;
    const doc = g.docs[0]!;
    return /^[a-z|]+$/.test(doc.args ?? '') ? `${doc.name} ${doc.args}` : doc.name;
  };
  const entry = (name: string, text: string) => (name.length + 4 > 24 ? [`  ${name}`, `${' '.repeat(24)}${text}`] : [`  ${name.padEnd(22)}${text}`]);
  const lines = ['qbft-lab: a Besu-compatible QBFT node under a deterministic simulator', '', 'Usage: qbft-lab COMMAND [options]'];
  for (const section of ['Simulator', 'Operators', 'Live network'] as const) {
    lines.push('', `${section}:`);
    for (const g of COMMAND_GROUPS.filter((c) => c.section === section)) lines.push(...entry(label(g), g.overview));
  }
  lines.push('', ...entry('help [COMMAND]', 'this overview, or the help of a command'), ...entry('--version, -V', 'the version of qbft-lab'));
  lines.push(
    '',
    "'qbft-lab COMMAND --help' (or 'qbft-lab help COMMAND') lists the command's options with their defaults, and examples.",
    'Exit status: 0 when every run is ok, 1 when a run fails its checks, 2 on a usage error.',
  );
  return lines.join('\n');
}

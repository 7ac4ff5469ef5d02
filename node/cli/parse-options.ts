/**
 * Command-line options read with node:util parseArgs' tokens (not its strict mode), so that every
 * mistake is answered in one line of ours naming the option, never in parseArgs' own words (its
 * hints about '--' and "ambiguous" arguments).
 */
import { parseArgs } from 'node:util';
import { UsageError } from './usage-error.ts';
import { unknownOptionMessage } from './suggest.ts';

export interface OptionType {
  type: 'string' | 'boolean';
  multiple?: boolean;
  /** What the value is called in messages and help: N, FILE, ... */
  value?: string;
}

export interface ParsedOptions {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** A negative number (-3, -0.5, -.5): a value, since no option is named like one. */
const NEGATIVE_NUMBER = /^-\.?\d/;

interface OptionToken {
  name: string;
  rawName: string;
  value?: string;
  inlineValue?: boolean;
}

/** The one-line problem with an option as written, or undefined when it is well formed. */
function problemOf(token: OptionToken, spec: OptionType | undefined, names: readonly string[]): string | undefined {
  if (spec === undefined) return unknownOptionMessage(token.rawName, names);
  const raw = token.rawName;
  if (spec.type === 'boolean') return token.value === undefined ? undefined : `${raw} takes no value (write ${raw} alone, not ${raw}=${token.value})`;
  if (token.value === undefined) return `${raw} needs a value (${raw} ${spec.value ?? 'VALUE'})`;
  if (!token.inlineValue && token.value.startsWith('-') && !NEGATIVE_NUMBER.test(token.value))
    return `${raw} needs a value (${raw} ${spec.value ?? 'VALUE'}) before '${token.value}' (write ${raw}=${token.value} for a value that starts with '-')`;
  return undefined;
}

/**
 * Reads `args` against `options`: `--name value`, `--name=value`, `--flag`; a value after a
 * space may be a negative number (`--seed -5`). Any other mistake is a UsageError of one line:
 * an unknown option (with the nearest known one), a missing value, a value given to a flag, or
 * (with positionals: false) an argument that is not an option.
 */
export function parseOptions(args: string[], options: Readonly<Record<string, OptionType>>, opts: { positionals?: boolean } = {}): ParsedOptions {
  const names = Object.keys(options);
  const types = Object.fromEntries(names.map((n) => [n, { type: options[n]!.type }]));
  const { tokens } = parseArgs({ args, options: types, strict: false, allowPositionals: true, tokens: true });
  const values: ParsedOptions['values'] = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'option-terminator') continue;
    if (token.kind === 'positional') {
      if (opts.positionals === false) throw new UsageError(`unexpected argument '${token.value}'`);
      positionals.push(token.value);
      continue;
    }
    const spec = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    const problem = problemOf(token, spec, names);
    if (problem !== undefined) throw new UsageError(problem);
    if (spec!.type === 'boolean') values[token.name] = true;
    else if (spec!.multiple) values[token.name] = [...((values[token.name] as string[] | undefined) ?? []), token.value!];
    else values[token.name] = token.value!;
  }
  return { values, positionals };
}

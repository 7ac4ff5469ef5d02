/**
 * What the scenario checks share: the error they throw, field checks that name the field's path in
 * the file ("steps[3].atMs"), and the network's node names as the runner makes them.
 */
import { SIM_START_TIME_MS, seconds } from './sim-start.ts';

export class ScenarioError extends Error {}

/** Checks fields of one scenario; every problem throws a ScenarioError naming `source` and the field's path. */
export class Fields {
  constructor(readonly source: string) {}

  fail(path: string, what: string): never {
    throw new ScenarioError(`${this.source}: ${path} ${what}`);
  }

  object(path: string, value: unknown): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(path, 'must be an object');
    return value as Record<string, unknown>;
  }

  array(path: string, value: unknown, what = 'an array'): unknown[] {
    if (!Array.isArray(value)) this.fail(path, `must be ${what}`);
    return value as unknown[];
  }

  /** An integer from min to max (inclusive). */
  int(path: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
    if (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? (min === 0 ? 'a non-negative integer' : min === 1 ? 'a positive integer' : `an integer of at least ${min}`) : `an integer from ${min} to ${max}`;
      this.fail(path, `must be ${range}${value === undefined ? '' : `, got ${show(value)}`}`);
    }
    return value as number;
  }

  optionalInt(path: string, value: unknown, min: number, max?: number): void {
    if (value !== undefined) this.int(path, value, min, max);
  }

  /** A block number or height: a non-negative integer. */
  height(path: string, value: unknown): number {
    return this.int(path, value, 0);
  }

  /** A length of time in ms (fractions allowed), not negative. */
  milliseconds(path: string, value: unknown): number {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) this.fail(path, `must be a number of milliseconds, 0 or more, got ${show(value)}`);
    return value as number;
  }

  probability(path: string, value: unknown): void {
    if (value !== undefined && (typeof value !== 'number' || !(value >= 0 && value <= 1))) this.fail(path, `must be a probability from 0 to 1, got ${show(value)}`);
  }

  boolean(path: string, value: unknown): void {
    if (value !== undefined && typeof value !== 'boolean') this.fail(path, `must be true or false, got ${show(value)}`);
  }

  string(path: string, value: unknown): string {
    if (typeof value !== 'string' || value === '') this.fail(path, `must be a non-empty string${value === undefined ? '' : `, got ${show(value)}`}`);
    return value as string;
  }

  oneOf(path: string, value: unknown, allowed: readonly string[]): void {
    if (!allowed.includes(value as string)) this.fail(path, `must be one of ${allowed.join(', ')}${value === undefined ? '' : `, got ${show(value)}`}`);
  }

  /** A wei amount as the runner and genesis read it: a decimal or 0x-hex string of a non-negative integer. */
  wei(path: string, value: unknown): void {
    if (typeof value !== 'string' || !/^(\d+|0[xX][0-9a-fA-F]+)$/.test(value)) this.fail(path, `must be a decimal or 0x-hex string of a non-negative integer, got ${show(value)}`);
  }

  /**
   * A virtual time: milliseconds from the start of the run, within it. An absolute clock reading
   * (the simulator's clock starts at SIM_START_TIME_MS) is named as such, with the time it meant.
   */
  time(path: string, value: unknown, durationMs: number): number {
    if (!Number.isSafeInteger(value) || (value as number) < 0) this.fail(path, `must be a non-negative integer (milliseconds from the start of the run), got ${show(value)}`);
    const ms = value as number;
    if (ms >= SIM_START_TIME_MS) {
      const relativeMs = ms - SIM_START_TIME_MS;
      const within = relativeMs <= durationMs ? '' : `, after the run ends at ${seconds(durationMs)}`;
      this.fail(path, `${ms} looks like an absolute virtual timestamp: times are milliseconds from the start of the run (${SIM_START_TIME_MS} on the simulator's clock), so write ${relativeMs} for ${seconds(relativeMs)} in${within}`);
    }
    if (ms > durationMs) this.fail(path, `${ms} (${seconds(ms)}) is after the run ends at durationMs ${durationMs} (${seconds(durationMs)}); times are milliseconds from the start of the run`);
    return ms;
  }
}

/** A value as it would appear in the file, cut short. */
export function show(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** The network's node names, as the runner makes them: v0.., o0.., then "<name>-twin" per twin. */
export class NodeNames {
  private readonly names = new Set<string>();
  private readonly twins: string[] = [];

  constructor(
    private readonly fields: Fields,
    private readonly validators: number,
    private readonly observers: number,
  ) {
    for (let i = 0; i < validators; i++) this.names.add(`v${i}`);
    for (let i = 0; i < observers; i++) this.names.add(`o${i}`);
  }

  addTwinOf(name: string): void {
    this.twins.push(`${name}-twin`);
    this.names.add(`${name}-twin`);
  }

  has(name: string): boolean {
    return this.names.has(name);
  }

  /** What the network has, for messages: "v0..v3, o0, v1-twin". */
  describe(): string {
    const range = (p: string, n: number) => (n === 1 ? `${p}0` : `${p}0..${p}${n - 1}`);
    return [range('v', this.validators), ...(this.observers > 0 ? [range('o', this.observers)] : []), ...this.twins].join(', ');
  }

  node(path: string, value: unknown): string {
    if (typeof value !== 'string') this.fields.fail(path, `must be a node name, got ${show(value)}`);
    if (!this.names.has(value as string)) this.fields.fail(`${path}:`, `unknown node '${value as string}' (this network has ${this.describe()})`);
    return value as string;
  }

  /** An array of distinct node names, non-empty unless `allowEmpty`. */
  nodeList(path: string, value: unknown, allowEmpty = false): string[] {
    const list = this.fields.array(path, value, `${allowEmpty ? 'an' : 'a non-empty'} array of node names`);
    if (list.length === 0 && !allowEmpty) this.fields.fail(path, 'must be a non-empty array of node names');
    const seen = new Set<string>();
    list.forEach((n, j) => {
      const name = this.node(`${path}[${j}]`, n);
      if (seen.has(name)) this.fields.fail(`${path}[${j}]:`, `'${name}' is listed twice`);
      seen.add(name);
    });
    return list as string[];
  }

  /** A node name, an address (0x + 40 hex digits) or a test account (account0..account2), as the runner resolves them. */
  nodeOrAccount(path: string, value: unknown): void {
    if (typeof value === 'string' && (/^0x[0-9a-fA-F]{40}$/.test(value) || /^account[0-2]$/.test(value))) return;
    if (typeof value === 'string' && /^account\d+$/.test(value)) this.fields.fail(`${path}:`, `unknown test account '${value}' (account0, account1 and account2 exist)`);
    this.node(path, value);
  }

  nodeOrAccountList(path: string, value: unknown): void {
    const list = this.fields.array(path, value, 'a non-empty array of node names or addresses');
    if (list.length === 0) this.fields.fail(path, 'must be a non-empty array of node names or addresses');
    list.forEach((v, j) => this.nodeOrAccount(`${path}[${j}]`, v));
  }
}

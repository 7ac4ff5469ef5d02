/** Turns `qbft-lab sim` flags into a scenario. */
import { readFileSync } from 'node:fs';
import { UsageError } from '../node/cli/usage-error.ts';
import { hexToBytes } from '../node/crypto/bytes.ts';
import { decodeExtraData } from '../node/chain/extra-data.ts';
import type { Scenario, Step } from '../sim/scenario.ts';
import { HOSTILE_BEHAVIOURS, isByzantineBehaviour } from '../sim/byzantine/names.ts';
import { parseDurationMs, parseLatency, parseWindow } from './durations.ts';

export interface SimFlags {
  validators?: string;
  duration?: string;
  seed?: string;
  'block-period'?: string;
  'request-timeout'?: string;
  latency?: string;
  loss?: string;
  crash?: string[];
  pause?: string[];
  partition?: string[];
  byzantine?: string[];
  'genesis-file'?: string;
  'early-round-change'?: boolean;
  'no-gossip'?: boolean;
  'max-peers'?: string;
  'wire-layout'?: string;
  'duplicate-message-limit'?: string;
}

/** Besu reads config.qbft.duplicatemessagelimit as a Java int. */
const MAX_DUPLICATE_MESSAGE_LIMIT = 2 ** 31 - 1;

function readGenesisJson(path: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`--genesis-file: cannot read ${path}: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`--genesis-file: ${path} is not a JSON object`);
  return value as Record<string, unknown>;
}

function positiveInt(text: string | undefined, flag: string, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`${flag}: '${text}' must be an integer from 1 to ${max}`);
  return n;
}

/** The key `name` already has in `obj` in any letter case (genesis keys are case-insensitive), else `name`. */
function keyIn(obj: Record<string, unknown>, name: string): string {
  return Object.keys(obj).find((k) => k.toLowerCase() === name) ?? name;
}

function objectAt(parent: Record<string, unknown>, name: string, field: string): Record<string, unknown> {
  const key = keyIn(parent, name);
  const value = (parent[key] ??= {});
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`--genesis-file: ${field} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** The operator's genesis with config.qbft.duplicatemessagelimit replaced (one key, whatever its case). */
function withDuplicateMessageLimit(genesis: Record<string, unknown>, limit: number): Record<string, unknown> {
  const copy = structuredClone(genesis);
  const qbft = objectAt(objectAt(copy, 'config', 'config'), 'qbft', 'config.qbft');
  qbft[keyIn(qbft, 'duplicatemessagelimit')] = limit;
  return copy;
}

function nodeName(text: string, n: number, flag: string): string {
  const m = /^v(\d+)$/.exec(text);
  if (!m || Number(m[1]) >= n) throw new UsageError(`${flag}: '${text}' is not a validator (v0..v${n - 1})`);
  return text;
}

function validatorCountOf(genesis: Record<string, unknown>): number | undefined {
  const extra = Object.entries(genesis).find(([k]) => k.toLowerCase() === 'extradata')?.[1];
  if (typeof extra !== 'string') return undefined;
  try {
    const n = decodeExtraData(hexToBytes(extra)).validators.length;
    return n > 0 ? n : undefined;
  } catch {
    throw new UsageError('--genesis-file: extraData is not QBFT extraData');
  }
}

export function simScenario(flags: SimFlags): Scenario {
  const duplicateMessageLimit =
    flags['duplicate-message-limit'] === undefined ? undefined : positiveInt(flags['duplicate-message-limit'], '--duplicate-message-limit', 100, MAX_DUPLICATE_MESSAGE_LIMIT);
  const fileGenesis = flags['genesis-file'] ? readGenesisJson(flags['genesis-file']) : undefined;
  const baseGenesis = fileGenesis && duplicateMessageLimit !== undefined ? withDuplicateMessageLimit(fileGenesis, duplicateMessageLimit) : fileGenesis;
  const fromGenesis = baseGenesis && flags.validators === undefined ? validatorCountOf(baseGenesis) : undefined;
  const n = fromGenesis ?? positiveInt(flags.validators, '--validators', 4, 200);
  const durationMs = flags.duration ? parseDurationMs(flags.duration, '--duration') : 60_000;
  if (durationMs <= 0) throw new UsageError('--duration must be positive');
  const steps: Step[] = [];
  const inRun = (window: { fromMs: number; toMs?: number }, flag: string, spec: string) => {
    const lastMs = window.toMs ?? window.fromMs;
    if (lastMs > durationMs) throw new UsageError(`${flag}: '${spec}' reaches ${lastMs / 1000} s, past the end of the run (--duration ${durationMs / 1000} s)`);
    return window;
  };
  for (const spec of flags.crash ?? []) {
    const at = spec.indexOf('@');
    if (at < 0) throw new UsageError(`--crash: '${spec}' must look like vI@T or vI@T1..T2`);
    const node = nodeName(spec.slice(0, at), n, '--crash');
    const window = inRun(parseWindow(spec.slice(at + 1), '--crash'), '--crash', spec);
    steps.push({ atMs: window.fromMs, do: 'crash', node });
    if (window.toMs !== undefined) steps.push({ atMs: window.toMs, do: 'restart', node });
  }
  for (const spec of flags.pause ?? []) {
    const at = spec.indexOf('@');
    const window = at < 0 ? undefined : inRun(parseWindow(spec.slice(at + 1), '--pause'), '--pause', spec);
    if (!window || window.toMs === undefined) throw new UsageError(`--pause: '${spec}' must look like vI@T1..T2`);
    const node = nodeName(spec.slice(0, at), n, '--pause');
    steps.push({ atMs: window.fromMs, do: 'pause', node }, { atMs: window.toMs, do: 'resume', node });
  }
  for (const spec of flags.partition ?? []) {
    const colon = spec.indexOf(':');
    if (colon < 0) throw new UsageError(`--partition: '${spec}' must look like T1..T2:vA,vB|vC,vD`);
    const window = inRun(parseWindow(spec.slice(0, colon), '--partition'), '--partition', spec);
    const groups = spec.slice(colon + 1).split('|').map((g) => g.split(',').map((v) => nodeName(v.trim(), n, '--partition')));
    if (groups.length < 2) throw new UsageError(`--partition: '${spec}' needs at least two groups separated by |`);
    steps.push({ atMs: window.fromMs, do: 'partition', groups });
    if (window.toMs !== undefined) steps.push({ atMs: window.toMs, do: 'heal' });
  }
  const twins: string[] = [];
  for (const spec of flags.byzantine ?? []) {
    const [who, behaviour] = spec.split(':');
    const node = nodeName(who ?? '', n, '--byzantine');
    if (behaviour === 'twin') twins.push(node);
    else if (behaviour !== 'none' && isByzantineBehaviour(behaviour)) steps.push({ atMs: 0, do: 'byzantine', node, behaviour });
    else throw new UsageError(`--byzantine: '${spec}' must be vI:BEHAVIOUR with BEHAVIOUR one of ${HOSTILE_BEHAVIOURS.join(', ')} or twin`);
  }
  let loss: number | undefined;
  if (flags.loss !== undefined) {
    loss = Number(flags.loss);
    if (!(loss >= 0 && loss <= 1)) throw new UsageError(`--loss: '${flags.loss}' must be a probability from 0 to 1`);
  }
  const wireLayout = flags['wire-layout'];
  if (wireLayout !== undefined && wireLayout !== 'besu26' && wireLayout !== 'legacy') throw new UsageError(`--wire-layout: '${wireLayout}' must be besu26 or legacy`);
  const seed = flags.seed === undefined ? 1 : Number(flags.seed);
  if (!Number.isSafeInteger(seed)) throw new UsageError(`--seed: '${flags.seed}' must be an integer`);
  return {
    name: 'sim',
    description: `${n} validators for ${durationMs} ms`,
    seed,
    validators: n,
    twins,
    baseGenesis,
    genesis: {
      blockPeriodSeconds: flags['block-period'] === undefined ? undefined : positiveInt(flags['block-period'], '--block-period', 1, 3600),
      requestTimeoutSeconds: flags['request-timeout'] === undefined ? undefined : positiveInt(flags['request-timeout'], '--request-timeout', 2, 3600),
      duplicateMessageLimit,
    },
    network: { latency: flags.latency ? parseLatency(flags.latency) : undefined, loss, gossip: flags['no-gossip'] ? false : undefined, maxPeers: maxPeersFlag(flags['max-peers']) },
    earlyRoundChange: flags['early-round-change'] ?? false,
    wireLayout,
    durationMs,
    steps,
    expect: [],
  };
}

function maxPeersFlag(value: string | undefined): number | 'all' | undefined {
  if (value === undefined || value === 'all') return value;
  return positiveInt(value, '--max-peers', 1, 10_000);
}

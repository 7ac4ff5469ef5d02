/**
 * Who took part in a run and how it ended, read from the trace's `run-started` and `run-finished`
 * lines. Traces written before those lines existed still work: nodes are then collected from the
 * lines that name them, and the parameters and verdict stay null.
 */
import type { RunFinishedEvent, RunNodeEntry, TraceLine, TraceLineOf, TraceViolation } from '../trace-events.ts';
import { compareNodeNames, roleOfName, type NodeRole } from './roster.ts';

export interface NodeInfo {
  name: string;
  address: string | null;
  role: NodeRole;
  /** Byzantine, misconfigured or a twin: excluded from the honest-node invariants. */
  faulty: boolean;
}

/** The run-finished line, read: the violations that count against the run, each without its offending line. */
export type RunVerdict = Omit<RunFinishedEvent, 'kind' | 'violations'> & { violations: RunViolation[] };

/** A checker's first violation as the verdict line lists it (the offending line left out). */
export type RunViolation = Omit<TraceViolation, 'line'>;

function violationsOf(v: unknown): RunViolation[] {
  if (!Array.isArray(v)) return [];
  return v
    .filter((x): x is Partial<TraceViolation> & { checker: string } => typeof x === 'object' && x !== null && typeof x.checker === 'string')
    .map((x) => ({ checker: x.checker, atMs: num(x.atMs) ?? 0, node: typeof x.node === 'string' ? x.node : null, height: num(x.height), round: num(x.round), reason: String(x.reason ?? '') }));
}

export interface RunInfo {
  scenario: string | null;
  seed: number | null;
  /** Absolute virtual time (ms) of the first trace line; every other time in the model is relative to it. */
  originMs: number;
  /** Relative time of the end of the run (the verdict line, or the last line). */
  endMs: number;
  durationMs: number | null;
  /** Validators at genesis. */
  validators: number;
  nodes: NodeInfo[];
  blockPeriodSeconds: number | null;
  requestTimeoutSeconds: number | null;
  epochLength: number | null;
  earlyRoundChange: boolean | null;
  /** Known-bug switches the nodes ran with (empty when none, or in traces from before they were recorded). */
  bugs: string[];
  /** The Besu release line the nodes behaved as, when the run named one. */
  besuVersion: string | null;
  verdict: RunVerdict | null;
  /** keccak-256 of the trace file, when the loader knows it. */
  traceHash: string | null;
  /** Trace lines read. */
  lines: number;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export class RunInfoTracker {
  private originMs: number | undefined;
  private lastMs = 0;
  private lineCount = 0;
  private started: TraceLineOf<'run-started'> | undefined;
  private finished: { t: number; line: TraceLineOf<'run-finished'> } | undefined;
  private readonly seen = new Set<string>();

  /** The first line fixes the origin; returns the line's time relative to it. */
  relative(line: TraceLine): number {
    if (this.originMs === undefined) this.originMs = line.t;
    return line.t - this.originMs;
  }

  /** Absolute virtual time of the first line (0 before any). */
  origin(): number {
    return this.originMs ?? 0;
  }

  add(line: TraceLine, t: number): void {
    this.lineCount++;
    if (t > this.lastMs) this.lastMs = t;
    if (line.node !== null) this.seen.add(line.node);
    switch (line.kind) {
      case 'run-started':
        this.started ??= line;
        break;
      case 'run-finished':
        this.finished = { t, line };
        break;
      case 'msg-sent':
        // Message lines carry the node names in from/to (their `node` is null).
        if (typeof line.from === 'string') this.seen.add(line.from);
        break;
    }
  }

  /** Nodes known so far, in run-started order or else by name. */
  nodes(): NodeInfo[] {
    // A trace file may come from another version: check each field before trusting it.
    const declared: Array<Partial<RunNodeEntry>> = Array.isArray(this.started?.nodes) ? this.started.nodes : [];
    const out: NodeInfo[] = declared
      .filter((n): n is Partial<RunNodeEntry> & { name: string } => typeof n?.name === 'string')
      .map((n) => ({
        name: n.name,
        address: typeof n.address === 'string' ? n.address : null,
        role: n.role === 'validator' || n.role === 'observer' || n.role === 'twin' ? n.role : roleOfName(n.name),
        faulty: n.faulty === true,
      }));
    const known = new Set(out.map((n) => n.name));
    const extra = [...this.seen].filter((n) => !known.has(n)).sort(compareNodeNames);
    for (const name of extra) out.push({ name, address: null, role: roleOfName(name), faulty: roleOfName(name) === 'twin' });
    return out;
  }

  info(endMs?: number): RunInfo {
    const s = this.started;
    const f = this.finished?.line;
    const nodes = this.nodes();
    const verdict: RunVerdict | null = f
      ? {
          ok: f.ok === true,
          height: num(f.height) ?? -1,
          roundChanges: num(f.roundChanges) ?? 0,
          maxRound: num(f.maxRound) ?? 0,
          invariants: {
            agreement: f.invariants?.agreement === true,
            validity: f.invariants?.validity === true,
            liveness: typeof f.invariants?.liveness === 'boolean' ? f.invariants.liveness : null,
          },
          violations: violationsOf(f.violations),
          expectations: Array.isArray(f.expectations) ? f.expectations.map((e) => ({ text: String(e?.text), ok: e?.ok === true })) : [],
          errors: Array.isArray(f.errors) ? f.errors.map(String) : [],
        }
      : null;
    return {
      scenario: typeof s?.scenario === 'string' ? s.scenario : null,
      seed: num(s?.seed),
      originMs: this.originMs ?? 0,
      endMs: endMs ?? this.finished?.t ?? this.lastMs,
      durationMs: num(s?.durationMs),
      validators: num(s?.validators) ?? nodes.filter((n) => n.role === 'validator').length,
      nodes,
      blockPeriodSeconds: num(s?.blockPeriodSeconds),
      requestTimeoutSeconds: num(s?.requestTimeoutSeconds),
      epochLength: num(s?.epochLength),
      earlyRoundChange: typeof s?.earlyRoundChange === 'boolean' ? s.earlyRoundChange : null,
      bugs: Array.isArray(s?.bugs) ? s.bugs.filter((b): b is string => typeof b === 'string') : [],
      besuVersion: typeof s?.besuVersion === 'string' ? s.besuVersion : null,
      verdict,
      traceHash: null,
      lines: this.lineCount,
    };
  }
}

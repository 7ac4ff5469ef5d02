/**
 * The written part of a report, as plain tables of text that the HTML and Markdown renderers both
 * lay out: the run's facts, invariant results, expectations, Besu's round summaries, heights with
 * round changes or forks, round changes, faults and key moments.
 */
import { quorumSize } from '../node/consensus/qbft/quorum.ts';
import { checkerStatuses, expectedFromVerdict, firstViolation, violationText } from './checker-status.ts';
import { formatDuration, formatMs, shortHex } from './format.ts';
import { moments } from './timeline/moments.ts';
import type { Timeline } from '../sim/run-model/timeline.ts';

export interface Table {
  headers: string[];
  rows: string[][];
  /** Rows left out to keep the report readable. */
  leftOut: number;
  /** The virtual time each row is about (for linking rows to the timeline). */
  rowTimesMs?: number[];
}

export interface InvariantResult {
  /** A checker of CHECKER_NAMES (sim/checkers/violation.ts), or a custom checker that reported a violation. */
  name: string;
  /** null: not judged (liveness when the run is too short after the last fault, or too many faulty). */
  ok: boolean | null;
  meaning: string;
  /** Its violation does not fail the run: the scenario's expectation that declares it. */
  expectedBy?: string;
}

export interface RoundSummaryBlock {
  height: number;
  /** Besu's heading line: "BFT round summary (quorum = 3)". */
  heading: string;
  outcome: string;
  table: Table;
}

export interface ReportSummary {
  title: string;
  /** The run's verdict; null when the trace has no run-finished line. */
  ok: boolean | null;
  facts: Array<[string, string]>;
  invariants: InvariantResult[];
  expectations: Array<{ text: string; ok: boolean }>;
  errors: string[];
  roundSummaries: RoundSummaryBlock[];
  heights: Table;
  roundChanges: Table;
  faults: Table;
  moments: Table;
}

const MEANINGS: Record<string, string> = {
  agreement: 'no two honest nodes import different blocks at one height',
  validity: 'every committed block carries a quorum of valid commit seals from its validators',
  acceptance: "an honest node's verdict on each peer message matches the validation rules, in Besu's order",
  'honest-non-equivocation': 'no honest validator signs two different messages of one kind for one height and round',
  'honest-messages': 'what an honest validator sends carries the quorums and justifications a correct peer accepts',
  'lock-safety': 'no honest validator prepares another block in a later round once a quorum committed one',
  'round-timer': 'round r lasts requesttimeoutseconds * 2^r',
  'round-start': 'round 0 starts at its block timer (or on a round-0 proposal); no timer acts on an imported height',
  'bounded-state': "one author's messages make a node hold at most 1000 rounds for one height",
  liveness: 'after the last fault heals (with at most f faulty) the chain grows again',
};

function table(headers: string[], rows: string[][], max: number, times?: number[]): Table {
  const t: Table = { headers, rows: rows.slice(0, max), leftOut: Math.max(0, rows.length - max) };
  if (times) t.rowTimesMs = times.slice(0, max);
  return t;
}

export interface SummaryOptions {
  /** Most rows per table (default 500). */
  maxRows?: number;
}

export function summarize(tl: Timeline, opts: SummaryOptions = {}): ReportSummary {
  const max = opts.maxRows ?? 500;
  const run = tl.run;
  const v = run.verdict;
  const facts: Array<[string, string]> = [];
  if (run.scenario !== null) facts.push(['scenario', run.scenario]);
  if (run.seed !== null) facts.push(['seed', String(run.seed)]);
  facts.push(['validators', `${run.validators} (quorum ${quorumSize(run.validators)}, f = ${Math.max(0, Math.floor((run.validators - 1) / 3))})`]);
  const others = run.nodes.filter((n) => n.role !== 'validator').map((n) => n.name);
  if (others.length > 0) facts.push(['other nodes', others.join(', ')]);
  const faulty = run.nodes.filter((n) => n.faulty).map((n) => n.name);
  if (faulty.length > 0) facts.push(['faulty (not held to the invariants)', faulty.join(', ')]);
  if (run.blockPeriodSeconds !== null) facts.push(['block period', `${run.blockPeriodSeconds} s`]);
  if (run.requestTimeoutSeconds !== null) facts.push(['round timeout', `${run.requestTimeoutSeconds} s × 2^round`]);
  if (run.earlyRoundChange !== null) facts.push(['early round change', run.earlyRoundChange ? 'on' : 'off']);
  if (run.bugs.length > 0) facts.push(['bug switches on', run.bugs.join(', ')]);
  if (run.besuVersion) facts.push(['nodes behave as', `Besu ${run.besuVersion} (its known bugs switched on)`]);
  facts.push(['simulated', formatDuration(run.endMs)]);
  if (v) facts.push(['height reached', String(v.height)]);
  const first = v ? firstViolation(v.violations) : undefined;
  if (first) facts.push(['first violation', violationText(first, Infinity)]);
  facts.push(['round changes', v ? `${v.roundChanges} (highest round ${v.maxRound})` : String(tl.roundChanges.length)]);
  const delivered = tl.messages.filter((m) => m.fate === 'delivered').length;
  const dropped = tl.messages.filter((m) => m.fate === 'dropped').length;
  facts.push(['messages', `${tl.messages.length + tl.messagesLeftOut} sent, ${delivered} delivered, ${dropped} dropped`]);
  if (run.traceHash) facts.push(['trace hash', run.traceHash]);
  facts.push(['trace lines', String(run.lines)]);

  const invariants: InvariantResult[] = v
    ? checkerStatuses({ violations: v.violations, liveness: v.invariants.liveness, expected: expectedFromVerdict(v) }).map((c) => ({
        name: c.name,
        ok: c.status === 'n/a' ? null : c.status === 'ok',
        meaning: MEANINGS[c.name] ?? 'a custom checker of the run',
        ...(c.expectedBy ? { expectedBy: c.expectedBy } : {}),
      }))
    : [];

  const roundSummaries: RoundSummaryBlock[] = tl.roundSummaries.slice(0, max).map((s) => ({
    height: s.height,
    heading: `BFT round summary (quorum = ${s.quorum})`,
    outcome:
      s.committedRound === null
        ? `height ${s.height} was not committed`
        : `height ${s.height} committed in round ${s.committedRound}${s.proposer ? ` (proposer ${s.proposer})` : ''} at ${formatMs(s.firstCommitMs!)}`,
    table: table(
      ['validator', 'address', 'round (latest ROUND_CHANGE)', 'highest round entered', 'note'],
      s.rows.map((r) => [r.node, r.address ?? '-', r.round === null ? '-' : String(r.round), r.highestRound === null ? '-' : String(r.highestRound), r.down ? 'down' : '']),
      max,
    ),
  }));

  const notable = tl.heights.filter((h) => h.maxRound > 0 || h.hashes.length > 1 || h.firstCommitMs === null);
  const heights = table(
    ['height', 'round 0 started', 'committed', 'round', 'proposer', 'highest round', 'blocks imported'],
    notable.map((h) => [
      String(h.height),
      h.startMs === null ? '-' : formatMs(h.startMs),
      h.firstCommitMs === null ? 'no' : formatMs(h.firstCommitMs),
      h.committedRound === null ? '-' : String(h.committedRound),
      h.proposer ?? '-',
      String(h.maxRound),
      h.hashes.length > 1 ? `${h.hashes.length} (fork: ${h.hashes.map((x) => shortHex(x)).join(', ')})` : String(h.hashes.length),
    ]),
    max,
  );

  const roundChanges = table(
    ['time', 'node', 'height', 'from round', 'to round', 'why', 'ROUND_CHANGE sent'],
    tl.roundChanges.map((c) => [
      formatMs(c.atMs),
      c.node,
      String(c.height),
      c.fromRound === null ? '-' : String(c.fromRound),
      String(c.toRound),
      c.reason,
      c.sent ? (c.preparedRound === null || c.preparedRound === undefined ? 'yes' : `yes (prepared in round ${c.preparedRound})`) : 'no',
    ]),
    max,
    tl.roundChanges.map((c) => c.atMs),
  );

  const faults = table(
    ['node', 'fault', 'from', 'to', 'detail'],
    tl.faults
      .filter((f) => !(f.kind === 'partition' && f.node !== null))
      .map((f) => [f.node ?? 'network', f.kind, formatMs(f.startMs), f.ongoing ? 'end of run' : formatMs(f.endMs), f.endedBy ? `${f.detail}; ${f.endedBy}` : f.detail]),
    max,
  );

  const ms = moments(tl).filter((m) => m.kind !== 'commit' || (m.round ?? 0) > 0);
  const momentsTable = table(['time', 'what happened'], ms.map((m) => [formatMs(m.atMs), m.text]), max, ms.map((m) => m.atMs));

  const name = run.scenario ?? 'trace';
  return {
    title: `qbft-lab report: ${name}${run.seed !== null ? ` (seed ${run.seed})` : ''}`,
    ok: v ? v.ok : null,
    facts,
    invariants,
    expectations: v?.expectations ?? [],
    errors: v?.errors ?? [],
    roundSummaries,
    heights,
    roundChanges,
    faults,
    moments: momentsTable,
  };
}

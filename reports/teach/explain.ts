/**
 * Explanations of QBFT moments with a run's own numbers: the round timer
 * (requesttimeoutseconds * 2^round), the quorum ceil(2n/3) as Besu computes it, f, who proposes a
 * round and why (round-robin in address order from the previous block's proposer, one further per
 * round), why a round failed, what a round change and a commit did, and the block timer.
 */
import type { Hex } from '../../node/crypto/bytes.ts';
import { maxFaulty, quorumSize } from '../../node/consensus/qbft/quorum.ts';
import { selectProposer } from '../../node/consensus/qbft/proposer-selection.ts';
import { formatDuration } from '../format.ts';
import type { Moment } from '../timeline/moments.ts';
import type { RoundInterval } from '../../sim/run-model/rounds.ts';
import { stateAt } from '../timeline/state-at.ts';
import { seconds } from '../tui/lane-text.ts';
import type { BlockFact } from './chain-facts.ts';
import type { LessonRun } from './lesson.ts';

export const s = (ms: number) => seconds(ms);

export function listNames(names: readonly string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

export function quorumText(n: number): string {
  return `quorum = ceil(2 x ${n} / 3) = ${quorumSize(n)}`;
}

export function faultyText(n: number): string {
  return `f = floor((${n} - 1) / 3) = ${maxFaulty(n)}`;
}

export function roundTimerMs(run: LessonRun, round: number): number {
  return run.chain.requestTimeoutSeconds * 1000 * 2 ** round;
}

export function roundTimerText(run: LessonRun, round: number): string {
  const req = run.chain.requestTimeoutSeconds;
  return `requesttimeoutseconds x 2^${round} = ${req} s x ${2 ** round} = ${formatDuration(req * 1000 * 2 ** round)}`;
}

/** Relative virtual ms of a block timestamp (seconds). */
export function timestampMs(run: LessonRun, timestamp: number): number {
  return timestamp * 1000 - run.timeline.run.originMs;
}

export function blockFact(run: LessonRun, n: number): BlockFact | undefined {
  return run.chain.blocks[n - 1];
}

/** The validators (address order) that run block `height`. */
export function validatorsFor(run: LessonRun, height: number): string[] {
  if (height <= 1) return run.chain.genesisValidators;
  return blockFact(run, height)?.validators ?? blockFact(run, height - 1)?.validatorsAfter ?? run.chain.genesisValidators;
}

export function proposerOf(run: LessonRun, height: number, round: number): string {
  const names = validatorsFor(run, height);
  const addresses = names.map((n) => run.chain.addressOf(n)).filter((a): a is string => a !== null) as Hex[];
  const prev = height <= 1 ? '0x0000000000000000000000000000000000000000' : (run.chain.addressOf(blockFact(run, height - 1)?.proposer ?? '') ?? '0x0000000000000000000000000000000000000000');
  return run.chain.nameOf(selectProposer(addresses, prev as Hex, round));
}

/** Who proposes (height, round) and why. */
export function proposerWhy(run: LessonRun, height: number, round: number): string {
  const names = validatorsFor(run, height);
  const p0 = proposerOf(run, height, 0);
  const p = proposerOf(run, height, round);
  const further = round === 0 ? '' : `; round ${round} moves ${round} further along: ${p}`;
  const order = `Validators in address order: ${names.join(' ')}.`;
  if (height <= 1) return `${order} Block 1 has no previous proposer (the genesis coinbase is 0x0, not a validator), so round 0 goes to the first validator after 0x0 in address order, ${p0}${further}.`;
  const prev = blockFact(run, height - 1)?.proposer ?? '?';
  if (!names.includes(prev)) return `${order} Block ${height - 1} was proposed by ${prev}, no longer a validator, so round 0 goes to the next validator after its address, ${p0}${further}.`;
  return `${order} Block ${height - 1} was proposed by ${prev}; round-robin gives round 0 to the next one, ${p0}${further}.`;
}

export function upValidators(run: LessonRun, atMs: number): string[] {
  const validators = new Set(run.timeline.lanes.filter((l) => l.node.role === 'validator').map((l) => l.node.name));
  return stateAt(run.timeline, atMs).lanes.filter((l) => l.up && validators.has(l.node)).map((l) => l.node);
}

function roundOf(run: LessonRun, node: string, height: number, round: number): RoundInterval | undefined {
  return run.timeline.lanes.find((l) => l.node.name === node)?.rounds.find((r) => r.height === height && r.round === round);
}

/** Why round `round` of `height`, started at startMs, produced no block. */
export function whyRoundFailed(run: LessonRun, height: number, round: number, startMs: number): string {
  const proposer = proposerOf(run, height, round);
  const n = validatorsFor(run, height).length;
  const up = upValidators(run, startMs).filter((v) => validatorsFor(run, height).includes(v));
  const q = quorumSize(n);
  if (!up.includes(proposer)) {
    const mine = run.timeline.lanes.flatMap((l) => l.rounds).find((r) => r.height === height && r.round === round && r.startMs === startMs);
    const back = mine ? run.timeline.faults.find((f) => f.node === proposer && f.kind === 'crash' && f.startMs <= startMs && !f.ongoing && f.endMs < mine.endMs) : undefined;
    if (back) return `Its proposer ${proposer} was down when the round started. It restarted at ${s(back.endMs)}, but a restarted validator begins the height at round 0 and did not join round ${round}.`;
    return `Its proposer ${proposer} was down, so no PROPOSAL came and nobody could prepare.`;
  }
  if (up.length < q) return `Only ${up.length} of ${n} validators were up (${listNames(up)}), fewer than the ${quorumText(n)} PREPARE and COMMIT messages a block needs.`;
  // Who else was in this very round while it ran?
  const mine = run.timeline.lanes.flatMap((l) => l.rounds).filter((r) => r.height === height && r.round === round && r.startMs === startMs);
  const endMs = Math.max(...mine.map((r) => r.endMs));
  const together = new Set(run.timeline.lanes.flatMap((l) => l.rounds).filter((r) => r.height === height && r.round === round && r.startMs < endMs && r.endMs > startMs).map((r) => r.node));
  if (together.size < q) {
    const elsewhere = up.filter((v) => !together.has(v)).map((v) => {
      const r = run.timeline.lanes.find((l) => l.node.name === v)?.rounds.find((x) => x.height === height && x.startMs <= startMs && x.endMs > startMs);
      return r ? `${v} in round ${r.round}` : v;
    });
    return `Only ${listNames([...together].sort())} ${together.size === 1 ? 'was' : 'were'} in round ${round} of height ${height} while it ran${elsewhere.length ? ` (${listNames(elsewhere)})` : ''}: a block needs ${q} validators in the same round (${quorumText(n)}).`;
  }
  return `The proposal, its PREPAREs or COMMITs did not reach a quorum of ${q} in time.`;
}

/** A round-change moment: which timer expired, the arithmetic, what the nodes send and who proposes next. */
export function explainRoundChange(run: LessonRun, m: Moment): string[] {
  const h = m.height!;
  const to = m.round!;
  const changes = run.timeline.roundChanges.filter((c) => c.atMs === m.atMs && c.height === h && c.toRound === to && m.nodes.includes(c.node));
  const first = changes[0];
  const out: string[] = [];
  if (first && first.reason === 'timeout' && first.fromRound !== null) {
    const from = first.fromRound;
    const r = roundOf(run, first.node, h, from);
    if (r) {
      out.push(
        `${listNames(m.nodes)} ${m.nodes.length > 1 ? 'were' : 'was'} in round ${from} of height ${h} since ${s(r.startMs)}. The round ${from} timer is ${roundTimerText(run, from)}, so it expired at ${s(r.startMs)} + ${formatDuration(roundTimerMs(run, from))} = ${s(r.startMs + roundTimerMs(run, from))}.`,
        whyRoundFailed(run, h, from, r.startMs),
      );
    }
  } else if (first?.reason === 'early') {
    out.push(`${listNames(m.nodes)} moved early: f+1 validators had already sent ROUND_CHANGE for a later round (--Xqbft-enable-early-round-change), so ${m.nodes.length > 1 ? 'they' : 'it'} did not wait for ${m.nodes.length > 1 ? 'their' : 'its'} own timer.`);
  } else if (first?.reason === 'quorum') {
    out.push(`${listNames(m.nodes)} moved up without ${m.nodes.length > 1 ? 'their' : 'its'} own timer expiring: a quorum of ROUND_CHANGE messages (or a justified proposal) for round ${to} arrived.`);
  } else if (first?.reason === 'joined') {
    out.push(`${listNames(m.nodes)} joined height ${h} directly in round ${to}.`);
  }
  const sent = changes.filter((c) => c.sent);
  if (sent.length > 0) {
    const prepared = sent.filter((c) => c.preparedRound !== null && c.preparedRound !== undefined);
    out.push(
      `${listNames(sent.map((c) => c.node))} broadcast ROUND_CHANGE for round ${to}, ${prepared.length === 0 ? 'with no prepared certificate (nothing was prepared in the failed round)' : `${listNames(prepared.map((c) => c.node))} carrying a prepared certificate from round ${prepared[0]!.preparedRound}, which the next proposer must re-propose`}.`,
    );
  }
  const n = validatorsFor(run, h).length;
  out.push(`Round ${to} runs with a timer of ${roundTimerText(run, to)}. A new PROPOSAL needs ${quorumSize(n)} ROUND_CHANGE messages for round ${to} to justify it (${quorumText(n)}).`);
  out.push(`Proposer of round ${to}: ${proposerOf(run, h, to)}. ${proposerWhy(run, h, to)}`);
  return out;
}

/** A commit moment: the quorum of COMMITs and seals, the proposer and why. */
export function explainCommit(run: LessonRun, m: Moment): string[] {
  const h = m.height!;
  const r = m.round ?? 0;
  const b = blockFact(run, h);
  const n = validatorsFor(run, h).length;
  const first = m.nodes[0];
  const seals = b?.seals ?? run.timeline.lanes.flatMap((l) => l.commits).find((c) => c.height === h)?.seals ?? 0;
  return [
    `Block ${h} is committed in round ${r}: ${first} was the first to hold ${quorumSize(n)} COMMIT messages (${quorumText(n)} of the ${n} validators ${listNames(validatorsFor(run, h))}); the block carries ${seals} commit seals.`,
    `Its proposer is ${b?.proposer ?? proposerOf(run, h, r)}. ${proposerWhy(run, h, r)}`,
  ];
}

/** When the block timer for `height` fires: a block period after its parent's timestamp. */
export function explainBlockTimer(run: LessonRun, height: number): string | null {
  const timer = run.timeline.lanes
    .flatMap((l) => l.timers)
    .filter((t) => t.kind === 'block' && t.height === height)
    .sort((a, b) => a.startMs - b.startMs)[0];
  if (!timer) return null;
  const parentTs = height <= 1 ? run.chain.genesisTimestamp : blockFact(run, height - 1)?.timestamp;
  if (parentTs === undefined) return null;
  const period = run.chain.blocks[height - 1]?.params.blockPeriodSeconds ?? run.chain.blockPeriodSeconds;
  const parent = height <= 1 ? 'The genesis block' : `Block ${height - 1}`;
  const wait = timer.dueMs - timer.startMs;
  return `${parent} has timestamp ${parentTs} (${s(timestampMs(run, parentTs))} into the run). Block ${height}'s round 0 waits a block period, ${period} s, after it: the block timer set at ${s(timer.startMs)} fires at ${s(timer.dueMs)}${wait > 0 && height > 1 ? ` (${formatDuration(wait)} later: the period counts from the parent's timestamp, not from the commit)` : ''}.`;
}

export function explainFault(m: Moment): string {
  return m.kind === 'fault' ? `Fault injected: ${m.text}.` : `Fault over: ${m.text}.`;
}

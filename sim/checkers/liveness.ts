/**
 * Liveness with a bound that does not excuse a stall. When the scenario's last fault step has run
 * (the 'faults-healed' marker), the checker looks at the run once:
 * - the validators then (for the next height on the honest nodes' highest block) and how many of
 *   them are faulty: Byzantine, twinned or misconfigured keys, and keys no honest node holds that
 *   is up, not paused and on the main side of a partition still in place. With more than f faulty,
 *   or a link still clogged, nothing is owed (verdict null).
 * - otherwise every honest node that is up, not paused and on the main side owes growth: its head
 *   must pass H, the highest head any honest node has at that moment, by the deadline
 *     heal + longest block period + sum_{k=0}^{R+f+2} requestTimeout * 2^k + latency allowance,
 *   where R is the highest round any honest node is in at that moment. The bound is fixed then
 *   and does not grow with rounds climbed later.
 * The runner keeps the world running up to the deadline (within a hard cap) when the scenario
 * ends first; a deadline beyond the cap leaves the verdict null.
 */
import type { Observation } from './observation.ts';
import type { RunModel, NodeState } from './run-model.ts';
import { FirstViolationChecker, type Violation } from './violation.ts';
import { maxFaulty, sortedAddresses } from './toolkit/bft-math.ts';
import type { Hex } from './toolkit/crypto.ts';

export type LivenessStatus = 'waiting-for-heal' | 'no-obligation' | 'pending' | 'satisfied' | 'violated' | 'not-judged';

export interface LivenessObligation {
  healMs: number;
  deadlineMs: number;
  /** Heads must pass this height. */
  mustPass: number;
  highestRound: number;
  f: number;
  faultyValidators: number;
  nodes: string[];
  boundText: string;
}

/** Rounds beyond which 2^k overflows any sensible virtual time. */
const MAX_EXPONENT = 40;

export class LivenessChecker extends FirstViolationChecker {
  readonly name = 'liveness' as const;
  status: LivenessStatus = 'waiting-for-heal';
  /** Why there is no obligation, or why it could not be judged. */
  note = '';
  obligation: LivenessObligation | undefined;
  satisfiedAtMs: number | undefined;
  /** Called once when the obligation is met or broken (the runner stops an extension early). */
  onSettled: (() => void) | undefined;

  constructor(
    private readonly model: RunModel,
    private readonly latencyAllowanceMs: number,
    onViolation?: (v: Violation) => void,
  ) {
    super(onViolation);
  }

  /** true met, false broken, null nothing owed or not judged. */
  verdict(): boolean | null {
    return this.status === 'satisfied' ? true : this.status === 'violated' ? false : null;
  }

  observe(o: Observation): void {
    if (o.type === 'faults-healed') {
      if (this.status === 'waiting-for-heal') this.onHeal(o.atMs);
      return;
    }
    if (this.status !== 'pending') return;
    if (o.atMs > this.obligation!.deadlineMs) return this.breach();
    if (o.type === 'block-imported' && o.status === 'head') this.checkMet(o.atMs);
  }

  finish(endMs: number): void {
    if (this.status === 'waiting-for-heal') {
      this.status = 'not-judged';
      this.note = 'the last fault step never ran';
    } else if (this.status === 'pending') {
      if (endMs >= this.obligation!.deadlineMs) this.breach();
      else {
        this.status = 'not-judged';
        this.note = `the run ended at ${endMs} ms, before the liveness deadline ${this.obligation!.deadlineMs} ms`;
      }
    }
  }

  /** The deadline the runner must reach for a verdict, while one is pending. */
  pendingDeadlineMs(): number | undefined {
    return this.status === 'pending' ? this.obligation!.deadlineMs : undefined;
  }

  private running(n: NodeState): boolean {
    if (!n.up || n.pausedSinceMs !== undefined) return false;
    const groups = this.model.partition;
    if (!groups) return true;
    return this.mainSide().has(n.name);
  }

  /** The partition side with the most validators (nodes not listed form one more side). */
  private mainSide(): Set<string> {
    const groups = this.model.partition ?? [];
    const listed = new Set(groups.flat());
    const sides = [...groups, [...this.model.nodes.keys()].filter((n) => !listed.has(n))];
    const validatorsIn = (side: string[]) => side.filter((n) => this.model.nodes.get(n)?.role === 'validator').length;
    let best = sides[0] ?? [];
    for (const side of sides) if (validatorsIn(side) > validatorsIn(best)) best = side;
    return new Set(best);
  }

  /** The validators for the block after `highest` on the honest chain; the run's validator nodes when unknown (contract mode). */
  private validatorsAtHeal(highest: number): Hex[] {
    const known = this.model.validatorsForHeight(highest + 1);
    if (known) return known;
    return sortedAddresses([...this.model.nodes.values()].filter((n) => n.role === 'validator').map((n) => n.address));
  }

  private onHeal(healMs: number): void {
    if (this.model.clogged.size > 0) {
      this.status = 'no-obligation';
      this.note = `links still clogged when the faults end: ${[...this.model.clogged].join(', ')}`;
      return;
    }
    const honestRunning = [...this.model.nodes.values()].filter((n) => this.model.honest(n.name) && this.running(n));
    const honestAll = [...this.model.nodes.values()].filter((n) => this.model.honest(n.name));
    const mustPass = Math.max(0, ...honestAll.map((n) => n.head));
    const validators = this.validatorsAtHeal(mustPass);
    const healthy = (v: Hex) => this.model.honestSigner(v) && this.model.holdersOf(v).some((n) => this.running(n));
    const faultyValidators = validators.filter((v) => !healthy(v)).length;
    const f = maxFaulty(validators.length);
    if (faultyValidators > f) {
      this.status = 'no-obligation';
      this.note = `${faultyValidators} of ${validators.length} validators faulty or down when the faults end (f = ${f})`;
      return;
    }
    if (honestRunning.length === 0) {
      this.status = 'no-obligation';
      this.note = 'no honest node is running when the faults end';
      return;
    }
    const highestRound = Math.max(0, ...honestRunning.map((n) => (n.round && n.round.height > n.head ? n.round.round : 0)));
    const exponent = highestRound + f + 3;
    if (exponent > MAX_EXPONENT) {
      this.status = 'not-judged';
      this.note = `round ${highestRound} at heal time: the bound is beyond any run`;
      return;
    }
    const timeoutMs = this.model.requestTimeoutMs;
    const timersMs = timeoutMs * (2 ** exponent - 1);
    const periodMs = this.model.rules.longestBlockPeriodMs;
    const deadlineMs = healMs + periodMs + timersMs + this.latencyAllowanceMs;
    this.obligation = {
      healMs,
      deadlineMs,
      mustPass,
      highestRound,
      f,
      faultyValidators,
      nodes: honestRunning.map((n) => n.name),
      boundText: `${periodMs} ms block period + sum over rounds 0..${exponent - 1} of ${timeoutMs} ms * 2^k (${timersMs} ms) + ${this.latencyAllowanceMs} ms latency allowance`,
    };
    this.status = 'pending';
    this.checkMet(healMs);
  }

  private checkMet(atMs: number): void {
    const ob = this.obligation!;
    if (!ob.nodes.every((name) => this.model.node(name).head > ob.mustPass)) return;
    this.status = 'satisfied';
    this.satisfiedAtMs = atMs;
    this.onSettled?.();
  }

  private breach(): void {
    const ob = this.obligation!;
    const stuck = ob.nodes.filter((name) => this.model.node(name).head <= ob.mustPass);
    this.status = 'violated';
    const first = stuck[0] ?? ob.nodes[0]!;
    this.report({
      atMs: ob.deadlineMs,
      node: first,
      height: this.model.node(first).head,
      round: this.model.node(first).round?.round ?? null,
      reason:
        `after the faults ended at ${ob.healMs} ms (highest round ${ob.highestRound}, ${ob.faultyValidators} faulty of f = ${ob.f}), ` +
        `${stuck.join(', ')} did not get past height ${ob.mustPass} by ${ob.deadlineMs} ms (bound: ${ob.boundText})`,
      line: `heads at the deadline: ${ob.nodes.map((n) => `${n} ${this.model.node(n).head}`).join(', ')}`,
    });
    this.onSettled?.();
  }
}

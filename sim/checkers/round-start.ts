/**
 * When rounds may start, judged from the trace and the chain alone:
 * - no block or round timer expiry for a height at or below the node's own chain head reaches its
 *   height manager (Besu drops them when they arrive: the fixes of #1734 and #10052). Work that
 *   began before sync imported the height may still go on and send messages, as in Besu, so rounds
 *   and messages for an imported height are not judged themselves;
 * - round 0 of a height starts when the node's block timer expires, at the parent's timestamp plus
 *   the block period on the node's own clock as it was when the height began (Besu PR #2112; a
 *   later clock adjustment moves the clock, not the pending timer), or earlier only because a round-0
 *   PROPOSAL for that height was already on the network (a proposal starts the round it names),
 *   or, with early round change on, a ROUND-CHANGE for that height was (Besu's height manager
 *   starts round 0 when a round change arrives and no round is running yet).
 *   Besu #2095 started round 0, and its round timer, with the height.
 */
import type { Observation } from './observation.ts';
import { ModelChecker, lineText } from './violation.ts';

export class RoundStartChecker extends ModelChecker {
  readonly name = 'round-start' as const;
  /** Absolute ms of virtual time 0 (block timestamps are absolute seconds). */
  private originMs: number | undefined;
  private readonly skewMs = new Map<string, number>();
  /**
   * A node's clock skew when it began its current height (when it armed the block timer): a later
   * clock adjustment moves the clock, not a pending timer.
   */
  private readonly skewAtHeightStartMs = new Map<string, number>();
  /** Height -> virtual ms the first round-0 PROPOSAL for it was put on the network. */
  private readonly firstRoundZeroProposalMs = new Map<number, number>();
  private earlyRoundChange = false;
  /** Height -> virtual ms the first ROUND-CHANGE for it was put on the network. */
  private readonly firstRoundChangeMs = new Map<number, number>();


  observe(o: Observation): void {
    if (this.stopped) return;
    switch (o.type) {
      case 'run-started':
        this.originMs = o.line.t - o.atMs;
        this.earlyRoundChange = o.earlyRoundChange;
        break;
      case 'fault':
        if (o.fault === 'clock-skew' && o.node !== null) this.skewMs.set(o.node, o.skewMs);
        break;
      case 'node-started':
      case 'block-imported':
        this.skewAtHeightStartMs.set(o.node, this.skewMs.get(o.node) ?? 0);
        break;
      case 'message': {
        if ('error' in o.decoded) return;
        if (o.decoded.kind === 'round-change') {
          const height = o.decoded.signed.payload.height;
          if (!this.firstRoundChangeMs.has(height)) this.firstRoundChangeMs.set(height, o.atMs);
          return;
        }
        if (o.decoded.kind !== 'proposal') return;
        const p = o.decoded.signed.payload;
        if (p.round === 0 && !this.firstRoundZeroProposalMs.has(p.height)) this.firstRoundZeroProposalMs.set(p.height, o.atMs);
        break;
      }
      case 'round-timer-expired':
      case 'block-timer-expired':
        this.judgeExpiry(o);
        break;
      case 'round-started':
        if (this.model.honest(o.node) && o.round === 0 && o.height > this.model.node(o.node).head) this.checkRoundZero(o);
        break;
      default:
        break;
    }
  }

  private judgeExpiry(o: Observation & { type: 'round-timer-expired' | 'block-timer-expired' }): void {
    if (!this.model.honest(o.node)) return;
    const head = this.model.node(o.node).head;
    if (o.height > head) return;
    const timer = o.type === 'block-timer-expired' ? 'block timer' : `round ${o.round} timer`;
    this.report({ atMs: o.atMs, node: o.node, height: o.height, round: o.type === 'round-timer-expired' ? o.round : 0, reason: `${o.node} acted on its ${timer} expiry for height ${o.height}, at or below its own chain head ${head}`, line: lineText(o.line) });
  }

  private checkRoundZero(o: Observation & { type: 'round-started' }): void {
    if (this.originMs === undefined) return;
    const parentTimestamp = this.model.timestampOfHonestBlock(o.height - 1);
    const gap = this.model.rules.minParentGapSecondsAt(o.height);
    if (parentTimestamp === undefined || gap === undefined) return;
    const expiryMs = (parentTimestamp + gap) * 1000;
    const nodeClockMs = this.originMs + o.atMs + (this.skewAtHeightStartMs.get(o.node) ?? 0);
    if (nodeClockMs >= expiryMs) return;
    const proposalMs = this.firstRoundZeroProposalMs.get(o.height);
    if (proposalMs !== undefined && proposalMs <= o.atMs) return;
    const roundChangeMs = this.earlyRoundChange ? this.firstRoundChangeMs.get(o.height) : undefined;
    if (roundChangeMs !== undefined && roundChangeMs <= o.atMs) return;
    this.report({
      atMs: o.atMs,
      node: o.node,
      height: o.height,
      round: 0,
      reason: `${o.node} started round 0 of height ${o.height} ${expiryMs - nodeClockMs} ms before its block timer (parent timestamp ${parentTimestamp} s + ${gap} s) and before any round-0 proposal${this.earlyRoundChange ? ' or round change' : ''}`,
      line: lineText(o.line),
    });
  }
}

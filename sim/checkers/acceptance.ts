/**
 * Acceptance: every verdict an honest node gives on a QBFT message received from a peer (a
 * proposal with its justification, a prepare, a commit, a round change with its prepared
 * certificate) is judged again here, on the message's own wire bytes decoded by the checkers'
 * decoder, against the validators and previous proposer this checker tracks for the node's height
 * and the proposal the node accepted for the round. The node accepting a message that breaks a
 * rule, rejecting one that breaks none, or naming another rule than the first one it breaks (in
 * Besu's order) is a violation.
 *
 * Not judged (counted in `unjudged`): rejections because the block itself failed the node's block
 * validation (the validity checker judges imported blocks), verdicts at a height whose validator
 * set cannot be known, and prepares and commits of a round whose proposal this checker did not see
 * the node accept.
 *
 * Coverage marks: `marks` counts, per rule, the judged messages whose first broken rule it was.
 */
import type { MessageJudged, MessageSent, Observation, ProposalSent } from './observation.ts';
import { ModelChecker, lineText } from './violation.ts';
import { keccak, SignerRecovery, fromHex, toHex, type Hex } from './toolkit/crypto.ts';
import type { QbftMessage } from './toolkit/qbft-messages.ts';
import { judgeProposal, judgeRoundChange, judgeVote, roundProposalOf, RULE_NAMES, type Broken, type JudgeContext, type RoundProposal, type RuleName } from './toolkit/qbft-rules.ts';

/** Rejections naming the block's own validity or the node's routing: nothing here re-derives them. */
const UNJUDGED_RULES: ReadonlySet<string> = new Set(['proposal-block-invalid', 'round-change-block-invalid', 'proposal-wrong-height', 'proposal-block-number']);
const ZERO_HASH = `0x${'0'.repeat(64)}` as Hex;
/** Messages are kept this many heights below the highest judged one. */
const HEIGHTS_KEPT = 64;
const PENDING_CAP = 10_000;

export class AcceptanceChecker extends ModelChecker {
  readonly name = 'acceptance' as const;
  /** Per rule: judged messages whose first broken rule it was. */
  readonly marks = new Map<RuleName, number>();
  judged = 0;
  unjudged = 0;
  private readonly messages = new Map<Hex, QbftMessage>();
  private readonly keysByHeight = new Map<number, Hex[]>();
  private readonly pending = new Map<Hex, MessageJudged[]>();
  private pendingCount = 0;
  private readonly heads = new Map<string, Hex>();
  private readonly proposals = new Map<string, RoundProposal>();
  /** Rounds whose proposal is the node's own, by `${node}|${height}|${round}`: the digest it traced. */
  private readonly ownProposals = new Map<string, Hex>();
  /** Blocks of proposals seen on the wire, by `${signer}|${height}|${round}` (the first one). */
  private readonly wireProposals = new Map<string, Uint8Array>();
  private readonly recovery = new SignerRecovery();
  private highestJudged = 0;

  observe(o: Observation): void {
    if (this.stopped) return;
    switch (o.type) {
      case 'message':
        return this.keep(o);
      case 'block-imported':
        if (o.status === 'head') this.heads.set(o.node, o.hash);
        return;
      case 'node-started':
        if (o.wiped) this.heads.delete(o.node);
        return;
      case 'proposal-sent':
        return this.noteOwnProposal(o);
      case 'message-judged':
        if (this.model.honest(o.node)) this.decision(o);
        return;
    }
  }

  /** Per rule, in Besu's order, with the rules no message broke. */
  markCounts(): Record<RuleName, number> {
    return Object.fromEntries(RULE_NAMES.map((r) => [r, this.marks.get(r) ?? 0])) as Record<RuleName, number>;
  }

  finish(): void {
    this.unjudged += this.pendingCount;
  }

  private keep(o: MessageSent): void {
    if ('error' in o.decoded) return;
    const key = toHex(keccak(o.data));
    if (this.messages.has(key)) return;
    this.messages.set(key, o.decoded);
    const height = o.decoded.signed.payload.height;
    if (o.decoded.kind === 'proposal' && o.decoded.signed.signer !== undefined) {
      const at = `${o.decoded.signed.signer}|${height}|${o.decoded.signed.payload.round}`;
      if (!this.wireProposals.has(at)) this.wireProposals.set(at, o.decoded.signed.payload.blockRlp);
    }
    // Far-future heights are never judged (nodes buffer only a few heights ahead): not kept.
    if (height > this.highestJudged + HEIGHTS_KEPT * 16) return;
    const list = this.keysByHeight.get(height);
    if (list) list.push(key);
    else this.keysByHeight.set(height, [key]);
    const waiting = this.pending.get(key);
    if (!waiting) return;
    this.pending.delete(key);
    this.pendingCount -= waiting.length;
    for (const d of waiting) this.decision(d);
  }

  /** The node's own proposal: its block is read from the wire once it went out (the trace line comes first). */
  private noteOwnProposal(o: ProposalSent): void {
    const at = `${o.node}|${o.height}|${o.round}`;
    this.proposals.delete(at);
    this.ownProposals.set(at, o.digest);
  }

  private roundProposal(node: string, height: number, round: number): RoundProposal | undefined {
    const at = `${node}|${height}|${round}`;
    const known = this.proposals.get(at);
    if (known) return known;
    const digest = this.ownProposals.get(at);
    if (digest === undefined) return undefined;
    const blockRlp = this.wireProposals.get(`${this.model.node(node).address}|${height}|${round}`);
    const proposal = blockRlp ? roundProposalOf(blockRlp, round) : undefined;
    if (!proposal || proposal.digest !== digest) return undefined;
    this.proposals.set(at, proposal);
    return proposal;
  }

  private decision(d: MessageJudged): void {
    if (d.key === undefined) {
      // The node's own proposal failed its own validation: the round has no proposal.
      if (d.kind === 'proposal' && !d.accepted) this.ownProposals.delete(`${d.node}|${d.height}|${d.round}`);
      return;
    }
    if (d.rule !== undefined && UNJUDGED_RULES.has(d.rule)) return void this.unjudged++;
    const message = this.messages.get(d.key);
    if (!message) return this.wait(d, d.key);
    const ctx = this.contextFor(d.node, d.height);
    if (!ctx) return void this.unjudged++;
    const verdict = this.verdictOn(d, message, ctx);
    if (verdict === null) return void this.unjudged++;
    this.judged++;
    this.pruneBelow(d.height);
    if (verdict) this.marks.set(verdict.rule, (this.marks.get(verdict.rule) ?? 0) + 1);
    if (d.accepted && d.kind === 'proposal' && message.kind === 'proposal') this.noteAcceptedProposal(d, message.signed.payload.blockRlp);
    this.compare(d, verdict);
  }

  /** The first rule the message breaks; undefined when none; null when it cannot be judged. */
  private verdictOn(d: MessageJudged, m: QbftMessage, ctx: JudgeContext): Broken | undefined | null {
    if (m.kind !== d.kind) return null;
    switch (m.kind) {
      case 'proposal':
        return judgeProposal(ctx, m);
      case 'round-change':
        return judgeRoundChange(ctx, m);
      case 'prepare':
      case 'commit': {
        const proposal = this.roundProposal(d.node, d.height, d.round);
        const verdict = judgeVote(ctx, m, proposal ?? { digest: ZERO_HASH, sealHash: ZERO_HASH }, (seal, hash) => this.recovery.signer(fromHex(hash), seal));
        // Without the round's proposal only the author can be judged.
        if (!proposal) return verdict?.rule === 'author-not-validator' ? verdict : null;
        return verdict;
      }
    }
  }

  private compare(d: MessageJudged, verdict: Broken | undefined): void {
    const what = `${d.node} ${d.accepted ? 'accepted' : `rejected (${d.rule ?? 'no rule'})`} a ${d.kind} for ${d.height}/${d.round} from ${d.author}`;
    let problem: string | undefined;
    if (d.accepted && verdict) problem = `it breaks ${verdict.rule}: ${verdict.reason}`;
    else if (!d.accepted && !verdict) problem = 'it breaks no rule';
    else if (!d.accepted && verdict && verdict.rule !== d.rule) problem = `the first rule it breaks is ${verdict.rule}: ${verdict.reason}`;
    if (problem) this.report({ atMs: d.atMs, node: d.node, height: d.height, round: d.round, reason: `${what}, but ${problem}`, line: lineText(d.line) });
  }

  private noteAcceptedProposal(d: MessageJudged, blockRlp: Uint8Array): void {
    const proposal = roundProposalOf(blockRlp, d.round);
    if (proposal) this.proposals.set(`${d.node}|${d.height}|${d.round}`, proposal);
  }

  private wait(d: MessageJudged, key: Hex): void {
    if (this.pendingCount >= PENDING_CAP) return void this.unjudged++;
    const list = this.pending.get(key);
    if (list) list.push(d);
    else this.pending.set(key, [d]);
    this.pendingCount++;
  }

  /** The validators and previous proposer for `height` on the node's chain (its head's ancestry). */
  private contextFor(node: string, height: number): JudgeContext | undefined {
    let parent = this.heads.get(node);
    if (height === 1) parent = ZERO_HASH;
    while (parent !== undefined && parent !== ZERO_HASH) {
      const block = this.model.tracker.get(parent)?.block;
      if (!block || block.number < height - 1) return undefined;
      if (block.number === height - 1) break;
      parent = block.parentHash;
    }
    if (parent === undefined || (parent === ZERO_HASH && height !== 1)) return undefined;
    const known = this.model.tracker.validatorsFor(height, parent);
    if (!known.validators || known.parentCoinbase === undefined) return undefined;
    return { height, validators: known.validators, parentCoinbase: known.parentCoinbase };
  }

  private pruneBelow(height: number): void {
    if (height <= this.highestJudged) return;
    this.highestJudged = height;
    for (const [h, keys] of this.keysByHeight) {
      if (h >= height - HEIGHTS_KEPT) continue;
      for (const k of keys) this.messages.delete(k);
      this.keysByHeight.delete(h);
    }
    for (const map of [this.proposals, this.ownProposals, this.wireProposals]) {
      for (const k of map.keys()) if (Number(k.split('|')[1]) < height - HEIGHTS_KEPT) map.delete(k);
    }
  }
}

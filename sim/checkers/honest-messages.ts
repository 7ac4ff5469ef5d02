/**
 * Honest messages are well-formed: what an honest validator itself puts on the network must be
 * something every correct peer accepts, judged here with the checkers' own decoder, quorum
 * arithmetic and validator sets (never the node's validation code):
 * - a ROUND_CHANGE with a prepared certificate carries a quorum of PREPAREs from distinct
 *   validators, each for the certificate's height, round and block;
 * - a PROPOSAL for round > 0 carries a quorum of ROUND_CHANGEs for that round from distinct
 *   validators and, when some were prepared, the best certificate's PREPAREs and its block (the
 *   proposed block with its round replaced by the prepared round hashes to the certificate's digest);
 * - a round-0 PROPOSAL's block is at least a block period newer than its parent;
 * - a PREPARE endorses a proposal: some PROPOSAL seen for that height, round and block must carry a
 *   justification that holds by the rules above (whoever proposed it: an honest node must not
 *   accept a Byzantine proposer's forged certificate, Besu PR #1671).
 * Only messages the node sends under its own key are judged (relays of others' messages are not).
 */
import type { MessageSent, Observation } from './observation.ts';
import { ModelChecker } from './violation.ts';
import { quorum } from './toolkit/bft-math.ts';
import { commitSealHash, decodeBlock, proposalDigest } from './toolkit/block.ts';
import type { Hex } from './toolkit/crypto.ts';
import type { PreparePayload, QbftMessage, Signed } from './toolkit/qbft-messages.ts';
import { describeSigned } from './describe.ts';

export class HonestMessagesChecker extends ModelChecker {
  readonly name = 'honest-messages' as const;
  /** `${height}/${round}/${digest}` -> the justification problem of each proposal seen for it (undefined: sound). */
  private readonly proposals = new Map<string, Array<string | undefined>>();


  observe(o: Observation): void {
    if (this.stopped || o.type !== 'message' || 'error' in o.decoded) return;
    const m = o.decoded;
    const signer = m.signed.signer;
    if (m.kind === 'proposal') this.rememberProposal(m);
    if (!signer || !this.model.honest(o.from)) return;
    const sender = this.model.node(o.from);
    if (sender.address !== signer) return;
    const problem = this.judge(m);
    if (problem === undefined) return;
    const p = m.signed.payload;
    this.report({ atMs: o.atMs, node: o.from, height: p.height, round: p.round, reason: `${o.from} sent ${problem}`, line: this.describe(o) });
  }

  private rememberProposal(m: QbftMessage & { kind: 'proposal' }): void {
    const p = m.signed.payload;
    let digest: Hex;
    try {
      digest = proposalDigest(decodeBlock(p.blockRlp));
    } catch {
      return;
    }
    const key = `${p.height}/${p.round}/${digest}`;
    const seen = this.proposals.get(key) ?? [];
    if (seen.length >= 4) return;
    seen.push(this.justificationProblem(m));
    this.proposals.set(key, seen);
  }

  /**
   * A message for a height the sender has already imported is not judged on that account: Besu
   * sends one when sync imports the height while a proposal is validated or built, or when
   * accepting a proposal completes the commit quorum before its PREPARE goes out; peers discard it.
   */
  private judge(m: QbftMessage): string | undefined {
    const p = m.signed.payload;
    if (m.kind === 'prepare' && p.kind === 'prepare') {
      const seen = this.proposals.get(`${p.height}/${p.round}/${p.digest}`);
      if (seen && seen.length > 0 && seen.every((problem) => problem !== undefined)) return `a prepare endorsing an unjustified proposal: ${seen[0]}`;
      return undefined;
    }
    const validators = this.model.validatorsForHeight(p.height);
    if (!validators) return undefined;
    if (m.kind === 'round-change' && p.kind === 'round-change' && p.prepared) {
      return this.certificateProblem(m.prepares, validators, quorum(validators.length), p.height, p.prepared.round, p.prepared.digest);
    }
    if (m.kind !== 'proposal' || p.kind !== 'proposal') return undefined;
    if (p.round === 0) {
      try {
        const block = decodeBlock(p.blockRlp);
        return this.timestampProblem(block.number, block.timestamp);
      } catch (err) {
        return `a proposal whose block does not decode: ${(err as Error).message}`;
      }
    }
    return this.justificationProblem(m);
  }

  /** What is wrong with a round > 0 proposal's justification, if anything. */
  private justificationProblem(m: QbftMessage & { kind: 'proposal' }): string | undefined {
    const p = m.signed.payload;
    if (p.round === 0) return undefined;
    const validators = this.model.validatorsForHeight(p.height);
    if (!validators) return undefined;
    const needed = quorum(validators.length);
    let block;
    try {
      block = decodeBlock(p.blockRlp);
    } catch (err) {
      return `a proposal whose block does not decode: ${(err as Error).message}`;
    }
    const authors = new Set<Hex>();
    for (const rc of m.roundChanges) {
      const who = rc.signer;
      if (!who || !validators.includes(who)) return `a round-${p.round} proposal justified by a round change from a non-validator`;
      if (authors.has(who)) return `a round-${p.round} proposal whose round changes repeat ${who}`;
      authors.add(who);
      if (rc.payload.height !== p.height || rc.payload.round !== p.round) return `a round-${p.round} proposal justified by a round change for height ${rc.payload.height} round ${rc.payload.round}`;
    }
    if (authors.size < needed) return `a round-${p.round} proposal justified by ${authors.size} round changes, quorum ${needed}`;
    let best: { round: number; digest: Hex } | undefined;
    for (const rc of m.roundChanges) {
      const prepared = rc.payload.prepared;
      if (prepared && (!best || prepared.round > best.round)) best = prepared;
    }
    if (!best) return m.prepares.length > 0 ? `a round-${p.round} proposal with prepares but no prepared round change` : undefined;
    if (commitSealHash(block, best.round) !== best.digest) return `a round-${p.round} proposal whose block is not the block prepared in round ${best.round}`;
    return this.certificateProblem(m.prepares, validators, needed, p.height, best.round, best.digest);
  }

  private certificateProblem(prepares: Signed<PreparePayload>[], validators: Hex[], needed: number, height: number, round: number, digest: Hex): string | undefined {
    const authors = new Set<Hex>();
    for (const prepare of prepares) {
      const who = prepare.signer;
      if (!who || !validators.includes(who)) return `a prepared certificate with a prepare from a non-validator`;
      if (authors.has(who)) return `a prepared certificate that repeats the prepare of ${who}`;
      authors.add(who);
      const q = prepare.payload;
      if (q.height !== height || q.round !== round || q.digest !== digest) return `a prepared certificate with a prepare for height ${q.height} round ${q.round} digest ${q.digest}`;
    }
    return authors.size < needed ? `a prepared certificate of ${authors.size} prepares, quorum ${needed}` : undefined;
  }

  private timestampProblem(number: number, timestamp: number): string | undefined {
    const parentTimestamp = this.model.timestampOfHonestBlock(number - 1);
    // The header rule at the block's own number and timestamp (time-typed transitions included).
    const gap = this.model.rules.parentGapRuleSecondsAt(number, timestamp);
    if (parentTimestamp === undefined || gap < 1) return undefined;
    const since = timestamp - parentTimestamp;
    return since < gap ? `a round-0 proposal for block ${number} only ${since} s after its parent, block period ${gap} s` : undefined;
  }

  private describe(o: MessageSent): string {
    if ('error' in o.decoded) return `undecodable message from ${o.from}`;
    return `${describeSigned(o.decoded.signed, this.model)}; sent by ${o.from} at ${o.atMs} ms`;
  }
}

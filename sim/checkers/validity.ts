/**
 * Validity: every block an honest node imports
 * - decodes, with a well-formed QBFT extraData (32-byte vanity, 20-byte validators, a vote of
 *   [] or [address, add|drop], a 4-byte round, 65-byte seals) and the on-chain hash the node reported;
 * - lists exactly its validator set, ascending, in block-header mode (and none, with no vote, in
 *   contract mode), the set being the one tracked here from the genesis along the block's ancestry;
 * - has a coinbase in that set, which for a round-0 block is the proposer the rotation picks for
 *   round 0; for a block of round r > 0 (a re-proposal keeps its first proposer's coinbase) it is
 *   the rotation's proposer of some round <= r, and every proposal of that block for round r seen
 *   on the network was signed by the rotation's proposer for round r;
 * - carries at least quorum(n) commit seals over its committed-seal hash for its round, each
 *   recovering to a distinct member of the set (no foreign, unrecoverable or duplicate seals).
 * - is at least the block period in force at its own number and timestamp newer than its parent
 *   (blockperiodseconds, or xblockperiodmilliseconds when set, floored to seconds; no rule under
 *   1 s), the period being computed here from the genesis and its transitions, block-numbered or
 *   time-typed (Besu PR #9785).
 * Checks that need the validator set are skipped (and counted in `unjudged`) when it is unknown.
 */
import type { BlockImported, Observation } from './observation.ts';
import { ModelChecker, lineText } from './violation.ts';
import { proposerFor, quorum } from './toolkit/bft-math.ts';
import { commitSealHash, type QbftExtraData } from './toolkit/block.ts';
import { SignerRecovery, fromHex, type Hex } from './toolkit/crypto.ts';
import type { TrackedBlock } from './toolkit/validator-tracker.ts';

export class ValidityChecker extends ModelChecker {
  readonly name = 'validity' as const;
  /** Imports whose validator set could not be known, so only the set-free checks ran. */
  unjudged = 0;
  private readonly judged = new Set<string>();
  /** Signers of proposals seen, by `${height}|${round}|${on-chain hash}`. */
  private readonly proposers = new Map<string, Set<Hex>>();
  private readonly recovery = new SignerRecovery();


  observe(o: Observation): void {
    if (this.stopped) return;
    if (o.type === 'message') this.noteProposal(o);
    else if (o.type === 'block-imported' && this.model.honest(o.node)) this.judge(o);
  }

  private noteProposal(o: Observation & { type: 'message' }): void {
    if ('error' in o.decoded || o.decoded.kind !== 'proposal' || !o.decoded.signed.signer) return;
    const block = this.model.proposedBlock(o.decoded.signed.payload.blockRlp);
    if (!block) return;
    const { height, round } = o.decoded.signed.payload;
    const key = `${height}|${round}|${block.onchainHash}`;
    let set = this.proposers.get(key);
    if (!set) this.proposers.set(key, (set = new Set()));
    set.add(o.decoded.signed.signer);
  }

  private judge(o: BlockImported): void {
    const imported = this.model.imported(o);
    const fail = (reason: string, round: number | null = null) =>
      this.report({ atMs: o.atMs, node: o.node, height: o.number, round, reason: `block ${o.number} imported by ${o.node}: ${reason}`, line: lineText(o.line) });
    if (!imported.ok) return fail(imported.error);
    const tracked = imported.tracked;
    // Judged on these bytes: nodes may hold one block with different rounds and seals.
    const block = imported.block;
    // The same bytes get the same verdict.
    const judgedKey = `${imported.rlpKey}|${o.hash}|${o.number}`;
    if (this.judged.has(judgedKey)) return;
    this.judged.add(judgedKey);
    if ('error' in block.extra) return fail(`extraData is not a QBFT extraData: ${block.extra.error}`);
    const extra = block.extra;
    if (block.number !== o.number) return fail(`the node reported number ${o.number}, the header says ${block.number}`, extra.round);
    if (block.onchainHash !== o.hash) return fail(`the node reported hash ${o.hash}, its on-chain hash is ${block.onchainHash}`, extra.round);
    if (extra.vanity.length !== 32) return fail(`extraData vanity is ${extra.vanity.length} bytes, not 32`, extra.round);
    const problem = this.setProblem(tracked, extra) ?? this.sealProblem(tracked, extra) ?? this.periodProblem(tracked);
    if (problem) fail(problem, extra.round);
  }

  private setProblem(tracked: TrackedBlock, extra: QbftExtraData): string | undefined {
    const block = tracked.block;
    const validators = tracked.validators;
    if (!validators) {
      this.unjudged++;
      return undefined;
    }
    const mode = this.model.rules.modeAt(block.number).kind;
    if (mode === 'contract') {
      if (extra.validators.length > 0 || extra.vote) return 'contract validator mode, but extraData lists validators or a vote';
    } else if (extra.validators.join(',') !== validators.join(',')) {
      return `extraData lists validators [${extra.validators.join(', ')}], the set for this block is [${validators.join(', ')}]`;
    }
    if (!validators.includes(block.coinbase)) return `coinbase ${block.coinbase} is not a validator`;
    if (tracked.parentCoinbase === undefined) return undefined;
    const proposer = (r: number) => proposerFor(validators, tracked.parentCoinbase!, r);
    if (extra.round === 0) {
      if (block.coinbase !== proposer(0)) return `round-0 block with coinbase ${block.coinbase} (${this.model.nameOf(block.coinbase)}), the proposer for round 0 is ${proposer(0)} (${this.model.nameOf(proposer(0))})`;
      return undefined;
    }
    const earlier = Array.from({ length: Math.min(extra.round, validators.length - 1) + 1 }, (_, k) => proposer(k));
    if (!earlier.includes(block.coinbase))
      return `round-${extra.round} block with coinbase ${block.coinbase} (${this.model.nameOf(block.coinbase)}), which is not the proposer of round ${extra.round} or of any earlier round`;
    const signers = this.proposers.get(`${block.number}|${extra.round}|${block.onchainHash}`);
    const want = proposer(extra.round);
    if (signers && !signers.has(want))
      return `proposed in round ${extra.round} by ${[...signers].map((s) => this.model.nameOf(s)).join(', ')}, the proposer for round ${extra.round} is ${want} (${this.model.nameOf(want)})`;
    return undefined;
  }

  private periodProblem(tracked: TrackedBlock): string | undefined {
    const block = tracked.block;
    const parentTimestamp = block.number === 1 ? this.model.rules.genesisTimestampSeconds : this.model.tracker.get(block.parentHash)?.block.timestamp;
    if (parentTimestamp === undefined) return undefined;
    const gap = this.model.rules.parentGapRuleSecondsAt(block.number, block.timestamp);
    const since = block.timestamp - parentTimestamp;
    if (since >= gap) return undefined;
    return `timestamp ${block.timestamp} is ${since} s after its parent's, the block period in force at block ${block.number} (timestamp ${block.timestamp}) is ${gap} s`;
  }

  private sealProblem(tracked: TrackedBlock, extra: QbftExtraData): string | undefined {
    const validators = tracked.validators;
    const hash = fromHex(commitSealHash(tracked.block, extra.round));
    const seen = new Set<Hex>();
    for (let i = 0; i < extra.seals.length; i++) {
      const seal = extra.seals[i]!;
      if (seal.length !== 65) return `seal ${i} is ${seal.length} bytes, not 65`;
      const signer = this.recovery.signer(hash, seal);
      if (!signer) return `seal ${i} does not recover to a signer`;
      if (validators && !validators.includes(signer)) return `seal ${i} is from ${signer} (${this.model.nameOf(signer)}), not a validator of this block`;
      if (seen.has(signer)) return `two seals from ${signer} (${this.model.nameOf(signer)})`;
      seen.add(signer);
    }
    if (validators && seen.size < quorum(validators.length)) return `${seen.size} commit seals, quorum of ${validators.length} validators is ${quorum(validators.length)}`;
    return undefined;
  }
}

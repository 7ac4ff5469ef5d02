/**
 * The state of one round at one height: the accepted proposal, prepares and commits by author.
 * Prepares and commits that arrive before the proposal are kept and re-checked against it.
 */
import { bytesToHex, type Hex } from '../../crypto/bytes.ts';
import type { CommitMessage, PrepareMessage, ProposalMessage, Signed, PreparePayload } from './messages.ts';
import type { ProposedBlock } from './core-types.ts';
import type { ValidationRule } from './rules.ts';

/** What the round decided on a prepare or commit once it could judge it against the proposal. */
export type VoteJudged = (message: PrepareMessage | CommitMessage, rule: ValidationRule | undefined) => void;

export interface RoundStateRules {
  isValidator: (a: Hex) => boolean;
  commitSealSigner: (seal: Uint8Array, digestForRound: Hex) => Hex | undefined;
  /** Whether a rule applies (a planted switch may turn one off). */
  enforced: (rule: ValidationRule) => boolean;
  onJudged: VoteJudged;
  /** besu-2449: every copy is an entry of its own. */
  countCopies?: boolean;
}

export interface PreparedCertificate {
  round: number;
  block: ProposedBlock;
  prepares: Signed<PreparePayload>[];
}

export class RoundState {
  proposal: ProposalMessage | undefined;
  block: ProposedBlock | undefined;
  /** Insertion order is kept: commit seals go into the block in the order commits arrived. */
  readonly prepares = new Map<Hex, PrepareMessage>();
  readonly commits = new Map<Hex, CommitMessage>();

  constructor(
    readonly height: number,
    readonly round: number,
    readonly quorum: number,
    private readonly rules: RoundStateRules,
  ) {}

  private arrivals = 0;

  setProposal(proposal: ProposalMessage, block: ProposedBlock): boolean {
    if (this.proposal) return false;
    this.proposal = proposal;
    this.block = block;
    for (const [key, p] of this.prepares) if (!this.judge(p, this.prepareRule(p))) this.prepares.delete(key);
    for (const [key, c] of this.commits) if (!this.judge(c, this.commitRule(c))) this.commits.delete(key);
    return true;
  }

  addPrepare(m: PrepareMessage): void {
    if (!this.admits(m, this.prepares)) return;
    if (this.block && !this.judge(m, this.prepareRule(m))) return;
    this.prepares.set(this.entryKey(m.signed.author), m);
  }

  addCommit(m: CommitMessage): void {
    if (!this.admits(m, this.commits)) return;
    if (this.block && !this.judge(m, this.commitRule(m))) return;
    this.commits.set(this.entryKey(m.signed.author), m);
  }

  /** Not yet held from this author, from a validator, for this round. */
  private admits(m: PrepareMessage | CommitMessage, held: Map<Hex, unknown>): boolean {
    const author = m.signed.author;
    if ((!this.rules.countCopies && held.has(author)) || !this.roundMatches(m.signed.payload.sequence, m.signed.payload.round)) return false;
    if (this.rules.isValidator(author) || !this.rules.enforced('author-not-validator')) return true;
    this.rules.onJudged(m, 'author-not-validator');
    return false;
  }

  /** Reports the verdict; true when accepted. */
  private judge(m: PrepareMessage | CommitMessage, rule: ValidationRule | undefined): boolean {
    this.rules.onJudged(m, rule);
    return rule === undefined;
  }

  /** Per author: the encoded bytes of the messages this round keeps (reported for the bounded-state measure). */
  bytesByAuthor(): Map<Hex, number> {
    const out = new Map<Hex, number>();
    const add = (author: Hex, bytes: number) => out.set(author, (out.get(author) ?? 0) + bytes);
    if (this.proposal) add(this.proposal.signed.author, this.proposal.signed.encoded.length + [...this.proposal.roundChanges, ...this.proposal.prepares].reduce((sum, s) => sum + s.encoded.length, 0));
    for (const m of [...this.prepares.values(), ...this.commits.values()]) add(m.signed.author, m.signed.encoded.length);
    return out;
  }

  isPrepared(): boolean {
    return this.block !== undefined && this.prepares.size >= this.quorum;
  }

  isCommitted(): boolean {
    return this.block !== undefined && this.commits.size >= this.quorum;
  }

  preparedCertificate(): PreparedCertificate | undefined {
    if (!this.isPrepared() || !this.block) return undefined;
    return { round: this.round, block: this.block, prepares: [...this.prepares.values()].map((p) => p.signed) };
  }

  commitSeals(): Uint8Array[] {
    return [...this.commits.values()].map((c) => c.signed.payload.commitSeal);
  }

  /**
   * Entries are keyed by author. besu-2449: Besu's message wrapper had no equality, so every copy of
   * a message that got past the duplicate filter was an entry of its own: one key per arrival.
   */
  private entryKey(author: Hex): Hex {
    return this.rules.countCopies ? (`${author}#${this.arrivals++}` as Hex) : author;
  }

  private roundMatches(sequence: number, round: number): boolean {
    return sequence === this.height && round === this.round;
  }

  private prepareRule(m: PrepareMessage): ValidationRule | undefined {
    const matches = this.block !== undefined && hexOf(m.signed.payload.digest) === this.block.digest;
    return matches || !this.rules.enforced('prepare-not-proposal') ? undefined : 'prepare-not-proposal';
  }

  private commitRule(m: CommitMessage): ValidationRule | undefined {
    const matches = this.block !== undefined && hexOf(m.signed.payload.digest) === this.block.digest;
    if (!matches && this.rules.enforced('commit-not-proposal')) return 'commit-not-proposal';
    if (!this.block) return undefined;
    const sealHash = this.block.digestForRound(this.round);
    const sealedByAuthor = this.rules.commitSealSigner(m.signed.payload.commitSeal, sealHash) === m.signed.author;
    return sealedByAuthor || !this.rules.enforced('commit-seal-not-author') ? undefined : 'commit-seal-not-author';
  }
}

function hexOf(b: Uint8Array): Hex {
  return bytesToHex(b);
}

/**
 * The state of one round at one height: the accepted proposal, prepares and commits by author.
 * Prepares and commits that arrive before the proposal are kept and re-checked against it.
 */
import { bytesToHex, type Hex } from '../../crypto/bytes.ts';
import type { CommitMessage, PrepareMessage, ProposalMessage, Signed, PreparePayload } from './messages.ts';
import type { ProposedBlock } from './core-types.ts';

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
    private readonly isValidator: (a: Hex) => boolean,
    private readonly commitSealSigner: (seal: Uint8Array, digestForRound: Hex) => Hex | undefined,
    private readonly countCopies = false,
  ) {}

  private arrivals = 0;

  setProposal(proposal: ProposalMessage, block: ProposedBlock): boolean {
    if (this.proposal) return false;
    this.proposal = proposal;
    this.block = block;
    for (const [author, p] of this.prepares) if (!this.prepareMatches(p)) this.prepares.delete(author);
    for (const [author, c] of this.commits) if (!this.commitMatches(c)) this.commits.delete(author);
    return true;
  }

  addPrepare(m: PrepareMessage): void {
    const author = this.entryKey(m.signed.author);
    if (this.prepares.has(author) || !this.isValidator(m.signed.author)) return;
    if (!this.roundMatches(m.signed.payload.sequence, m.signed.payload.round)) return;
    if (this.block && !this.prepareMatches(m)) return;
    this.prepares.set(author, m);
  }

  addCommit(m: CommitMessage): void {
    const author = this.entryKey(m.signed.author);
    if (this.commits.has(author) || !this.isValidator(m.signed.author)) return;
    if (!this.roundMatches(m.signed.payload.sequence, m.signed.payload.round)) return;
    if (this.block && !this.commitMatches(m)) return;
    this.commits.set(author, m);
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
    return this.countCopies ? (`${author}#${this.arrivals++}` as Hex) : author;
  }

  private roundMatches(sequence: number, round: number): boolean {
    return sequence === this.height && round === this.round;
  }

  private prepareMatches(m: PrepareMessage): boolean {
    return this.block !== undefined && hexOf(m.signed.payload.digest) === this.block.digest;
  }

  private commitMatches(m: CommitMessage): boolean {
    if (!this.block || hexOf(m.signed.payload.digest) !== this.block.digest) return false;
    const sealHash = this.block.digestForRound(this.round);
    return this.commitSealSigner(m.signed.payload.commitSeal, sealHash) === m.signed.author;
  }
}

function hexOf(b: Uint8Array): Hex {
  return bytesToHex(b);
}

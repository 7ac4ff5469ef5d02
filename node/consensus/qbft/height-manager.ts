/**
 * The QBFT state machine for one block height (Besu's QbftBlockHeightManager and QbftRound
 * folded together). Pure: `handle(event)` returns the actions to perform. A new instance is made
 * for every height, when the node's chain head changes.
 */
import { hexToBytes, type Hex } from '../../crypto/bytes.ts';
import { recoverAddressForHexHash, signRemembered } from './signer-cache.ts';
import { signPayloadWith } from './messages/signed.ts';
import type { CoreAction, CoreConfig, CoreEvent, HeightContext, ProposedBlock } from './core-types.ts';
import type { ConsensusTraceEvent, JudgedMessageType } from '../../runtime/trace-events.ts';
import {
  type CommitMessage,
  type QbftMessage,
  type PrepareMessage,
  type PreparePayload,
  type ProposalMessage,
  type RoundChangeMessage,
  type Payload,
  type RoundChangePayload,
  type Signed,
} from './messages.ts';
import { earlyRoundChangeQuorum, quorumSize } from './quorum.ts';
import { RoundState, type PreparedCertificate } from './round-state.ts';
import { RoundChangeManager, type CollectedRoundChange } from './round-change-manager.ts';
import { expectedProposer, OK, validateProposal, validateRoundChange, type ValidationContext, type Verdict } from './validation.ts';

export interface HeldState {
  /** Target rounds with a round-change collection. */
  roundChangeRounds: number;
  highestRoundChangeRound: number;
  /** Future rounds with buffered prepares or commits. */
  futureRoundStates: number;
  /** What each author's messages make this height hold, sorted by author: reported, never used by the node. */
  byAuthor: AuthorHeldState[];
}

export interface AuthorHeldState {
  author: Hex;
  /** Distinct target rounds of this author's round changes kept. */
  roundChangeRounds: number;
  /** Distinct future rounds holding a message of this author. */
  futureRounds: number;
  /** Encoded bytes of those messages. */
  bytes: number;
}

interface PendingBlock {
  round: number;
  roundChanges: Signed<RoundChangePayload>[];
  prepares: Signed<PreparePayload>[];
  /** Built only to learn whether it would be empty (Besu's wouldCreateEmptyBlock): never proposed. */
  emptyCheck: boolean;
  /** When the block timer fired: a non-proposer reads the clock before building. */
  timerAtMs: number;
}

/** What Besu's NodeKey throws as SecurityModuleException: the configured signer failed. */
class SigningFailed extends Error {}

export class HeightManager {
  readonly height: number;
  private readonly quorum: number;
  private readonly validatorSet: Set<Hex>;
  private readonly vctx: ValidationContext;
  private readonly rcManager: RoundChangeManager;
  private current: RoundState | undefined;
  private readonly futureRounds = new Map<number, RoundState>();
  private latestPrepared: PreparedCertificate | undefined;
  private pending: PendingBlock | undefined;
  private out: CoreAction[] = [];
  /** Content keys of the messages received from peers (decoded messages are shared objects, keys a function of their bytes). */
  private readonly keys = new WeakMap<object, Hex>();
  private nowMs = 0;

  constructor(
    private readonly cfg: CoreConfig,
    readonly ctx: HeightContext,
  ) {
    this.height = ctx.height;
    this.quorum = quorumSize(ctx.validators.length);
    this.validatorSet = new Set(ctx.validators);
    this.vctx = { height: ctx.height, validators: ctx.validators, parentCoinbase: ctx.parentCoinbase, maxRound: cfg.maxRound, enforced: cfg.hooks.ruleEnforced };
    this.rcManager = new RoundChangeManager(this.quorum);
  }

  /** Actions to take when this height begins. */
  start(nowMs: number): CoreAction[] {
    this.nowMs = nowMs;
    this.emit({ type: 'setBlockTimer', height: this.height, atMs: this.ctx.blockTimerAtMs });
    if (this.cfg.hooks.roundZeroStartsWithHeight && this.isLocalValidator()) this.startNewRound(0);
    return this.flush();
  }

  currentRound(): number | undefined {
    return this.current?.round;
  }

  /** What this height holds per round (for the simulator's bounded-state check and for stats). */
  heldState(): HeldState {
    return { roundChangeRounds: this.rcManager.roundsHeld(), highestRoundChangeRound: this.rcManager.highestRound(), futureRoundStates: this.futureRounds.size, byAuthor: this.heldByAuthor() };
  }

  private heldByAuthor(): AuthorHeldState[] {
    const held = new Map<Hex, AuthorHeldState>();
    const of = (author: Hex) => held.get(author) ?? held.set(author, { author, roundChangeRounds: 0, futureRounds: 0, bytes: 0 }).get(author)!;
    for (const [author, { rounds, bytes }] of this.rcManager.heldByAuthor()) Object.assign(of(author), { roundChangeRounds: rounds, bytes });
    for (const state of this.futureRounds.values()) {
      for (const [author, bytes] of state.bytesByAuthor()) {
        const entry = of(author);
        entry.futureRounds++;
        entry.bytes += bytes;
      }
    }
    return [...held.values()].sort((a, b) => (a.author < b.author ? -1 : a.author > b.author ? 1 : 0));
  }

  isLocalValidator(): boolean {
    return this.validatorSet.has(this.cfg.address);
  }

  handle(event: CoreEvent): CoreAction[] {
    this.nowMs = event.nowMs;
    if ('key' in event && event.key !== undefined) this.keys.set(event.message, event.key);
    switch (event.type) {
      case 'newHeight':
        break;
      case 'blockTimerExpired':
        if (event.height === this.height) this.onBlockTimer(event.round);
        break;
      case 'roundTimerExpired':
        if (event.height === this.height && this.current?.round === event.round) this.doRoundChange(event.round + 1);
        break;
      case 'blockCreated':
        if (event.height === this.height) this.onBlockCreated(event.round, event.block);
        break;
      case 'proposal':
        this.onProposal(event.message, event.block);
        break;
      case 'prepare':
        this.onPrepare(event.message);
        break;
      case 'commit':
        this.onCommit(event.message);
        break;
      case 'roundChange':
        this.onRoundChange({ message: event.message, block: event.block }, event.blockInvalid === true);
        break;
    }
    return this.flush();
  }

  private flush(): CoreAction[] {
    const actions = this.out;
    this.out = [];
    return actions;
  }

  private emit(action: CoreAction): void {
    this.out.push(action);
  }

  private trace(event: ConsensusTraceEvent): void {
    this.out.push({ type: 'trace', event });
  }

  /**
   * A decision on a message: every rejection, and the acceptance of a message received from a peer
   * (one with a content key), for the acceptance checker to judge again.
   */
  private traceDecision(type: JudgedMessageType, message: QbftMessage, round: number, verdict: Verdict): void {
    const author = message.signed.author;
    const key = this.keys.get(message);
    if (verdict.ok) {
      if (key !== undefined) this.trace({ kind: 'message-accepted', height: this.height, type, round, author, key });
      return;
    }
    this.trace({ kind: 'message-rejected', height: this.height, type, round, author, reason: verdict.reason, rule: verdict.rule, ...(key === undefined ? {} : { key }) });
  }

  private isProposerFor(round: number): boolean {
    return expectedProposer(this.vctx, round) === this.cfg.address;
  }

  private newRoundState(round: number): RoundState {
    return new RoundState(this.height, round, this.quorum, {
      isValidator: (a) => this.validatorSet.has(a),
      commitSealSigner: (seal, digest) => recoverAddressForHexHash(digest, seal),
      enforced: this.cfg.hooks.ruleEnforced,
      onJudged: (m, rule) => this.traceDecision(m.kind, m, m.signed.payload.round, rule === undefined ? OK : { ok: false, rule, reason: `${m.kind} breaks ${rule}` }),
      countCopies: this.cfg.hooks.quorumCountsCopies,
    });
  }

  private startNewRound(round: number): void {
    const buffered = this.futureRounds.get(round);
    this.current = buffered ?? this.newRoundState(round);
    for (const r of [...this.futureRounds.keys()]) if (r <= round) this.futureRounds.delete(r);
    this.rcManager.discardRoundsPriorTo(round);
    if (this.pending && this.pending.round !== round) this.pending = undefined;
    const delayMs = Math.min(this.ctx.requestTimeoutMs * 2 ** round, Number.MAX_SAFE_INTEGER);
    this.emit({ type: 'setRoundTimer', height: this.height, round, delayMs });
    this.trace({ kind: 'round-started', height: this.height, round, proposer: expectedProposer(this.vctx, round), timeoutMs: delayMs });
  }

  // ---- signing (Besu's NodeKey; a failure is its SecurityModuleException) ----

  private signHash(hash: Uint8Array): Uint8Array {
    const signer = this.cfg.signer;
    if (!signer) return signRemembered(hash, this.cfg.privateKey);
    try {
      return signer(hash);
    } catch (err) {
      throw new SigningFailed(`signing failed: ${(err as Error).message}`);
    }
  }

  private signed<P extends Payload>(payload: P): Signed<P> {
    const layout = payload.kind === 'proposal' ? this.cfg.layout : 'besu26';
    return signPayloadWith(payload, (hash) => this.signHash(hash), this.cfg.address, layout);
  }

  /** `make()`, or undefined when signing failed inside it (Besu logs a warning and carries on). */
  private unlessSigningFails<T>(make: () => T): T | undefined {
    try {
      return make();
    } catch (err) {
      if (err instanceof SigningFailed) return undefined;
      throw err;
    }
  }

  private commitSeal(round: number, block: ProposedBlock): Uint8Array {
    return this.signHash(hexToBytes(block.digestForRound(round)));
  }

  private commitMessage(round: number, block: ProposedBlock, seal: Uint8Array): CommitMessage {
    return { kind: 'commit', signed: this.signed({ kind: 'commit', sequence: this.height, round, digest: hexToBytes(block.digest), commitSeal: seal }) };
  }

  // ---- block timer and block creation (Besu's handleBlockTimerExpiry, buildBlockAndMaybePropose) ----

  private onBlockTimer(round: number): void {
    const roundZeroWaiting = this.cfg.hooks.roundZeroStartsWithHeight && this.current?.round === 0 && !this.current.proposal && !this.pending;
    if (this.current && !roundZeroWaiting) return;
    if (!this.current) this.startNewRound(0);
    if (round !== this.current!.round) return;
    const seconds = this.cfg.hooks.blockTimestampSeconds(this.nowMs);
    const proposer = this.isProposerFor(0);
    // A non-proposer idles with the proposer while the block would be empty (Besu PRs #10153, #11031).
    if (!proposer && !this.withinEmptyBlockPeriod(this.nowMs)) return;
    this.pending = { round: 0, roundChanges: [], prepares: [], emptyCheck: !proposer, timerAtMs: this.nowMs };
    this.emit({ type: 'createBlock', height: this.height, round: 0, timestampSeconds: seconds, ...(proposer ? {} : { emptyCheck: true }) });
  }

  /** Besu's BlockTimer.checkEmptyBlockExpired, negated: with no empty-block period it is over at the parent's time. */
  private withinEmptyBlockPeriod(atMs: number): boolean {
    return atMs <= (this.ctx.parentTimestampSeconds + this.ctx.emptyBlockPeriodSeconds) * 1000;
  }

  /** Besu's resetTimerForEmptyBlock, round timer cancelled and no current round, until the block timer fires again. */
  private idleForEmptyBlock(atMs: number): void {
    const emptyDeadlineMs = (this.ctx.parentTimestampSeconds + this.ctx.emptyBlockPeriodSeconds) * 1000;
    // At the deadline itself the period is not yet over (Besu compares now > deadline) and Besu's
    // timer re-fires at once, on a clock that has moved on; on a virtual clock that stands still,
    // the same instant would loop for ever, so the re-check comes 1 ms later.
    const untilMs = Math.max(Math.min(emptyDeadlineMs, atMs + this.ctx.blockPeriodSeconds * 1000), this.nowMs + 1);
    this.emit({ type: 'setBlockTimer', height: this.height, atMs: untilMs });
    this.emit({ type: 'cancelRoundTimer', height: this.height });
    this.current = undefined;
    this.trace({ kind: 'empty-block-deferred', height: this.height, untilMs });
  }

  private onBlockCreated(round: number, block: ProposedBlock): void {
    const pending = this.pending;
    if (!pending || pending.round !== round || !this.current || this.current.round !== round || this.current.proposal) return;
    this.pending = undefined;
    if (pending.emptyCheck) {
      if (block.txCount === 0) this.idleForEmptyBlock(pending.timerAtMs);
      return;
    }
    // The proposer reads the clock after building.
    if (round === 0 && block.txCount === 0 && this.withinEmptyBlockPeriod(this.nowMs)) {
      this.idleForEmptyBlock(this.nowMs);
      return;
    }
    this.proposeAndTransmit(this.current, block, pending);
  }

  // ---- the round (Besu's QbftRound) ----

  /** Besu's updateStateWithProposalAndTransmit: an unsigned proposal is dropped ("waiting for next round"). */
  private proposeAndTransmit(state: RoundState, block: ProposedBlock, pending: PendingBlock): void {
    const proposal = this.unlessSigningFails(
      (): ProposalMessage => ({
        kind: 'proposal',
        signed: this.signed({ kind: 'proposal', sequence: this.height, round: state.round, blockRlp: block.rlp }),
        roundChanges: pending.roundChanges,
        prepares: pending.prepares,
      }),
    );
    if (!proposal) return;
    this.emit({ type: 'broadcast', message: proposal });
    this.trace({ kind: 'proposal-sent', height: this.height, round: state.round, digest: block.digest, txs: block.txCount });
    if (this.updateStateWithProposedBlock(state, proposal, block) || this.cfg.hooks.proposerPreparesRejectedProposal) this.sendPrepare(state, block);
  }

  private onProposal(message: ProposalMessage, block: ProposedBlock | undefined): void {
    const { round, sequence } = message.signed.payload;
    if (sequence !== this.height) return;
    const currentRound = this.current?.round ?? -1;
    if (round < currentRound) return;
    if (!block) {
      this.traceDecision('proposal', message, round, { ok: false, rule: 'proposal-block-invalid', reason: 'invalid block' });
      return;
    }
    if (round > currentRound) {
      if (!this.proposalValid(message, block)) return;
      this.startNewRound(round);
    }
    const state = this.current!;
    if (this.updateStateWithProposedBlock(state, message, block)) this.sendPrepare(state, block);
  }

  private proposalValid(message: ProposalMessage, block: ProposedBlock): boolean {
    const verdict = validateProposal(this.vctx, message, block);
    if (!verdict.ok) this.traceDecision('proposal', message, message.signed.payload.round, verdict);
    return verdict.ok;
  }

  /**
   * Besu's RoundState.setProposedBlock: the first proposal of the round, validated (the node's own
   * too, Besu PR #7875). Prepares and commits kept before it that do not match it are dropped.
   */
  private setProposedBlock(state: RoundState, message: ProposalMessage, block: ProposedBlock): boolean {
    if (state.proposal || !this.proposalValid(message, block)) return false;
    this.traceDecision('proposal', message, state.round, OK);
    return state.setProposal(message, block);
  }

  /**
   * Besu's QbftRound.updateStateWithProposedBlock: the local commit (and its seal) counts toward
   * the commit quorum as soon as the proposal is accepted; it is broadcast only once prepared, here
   * already if prepares that came first complete the quorum. Returns whether the block was accepted
   * (also when signing then failed).
   */
  private updateStateWithProposedBlock(state: RoundState, message: ProposalMessage, block: ProposedBlock): boolean {
    const wasPrepared = state.isPrepared();
    const wasCommitted = state.isCommitted();
    if (!this.setProposedBlock(state, message, block)) return false;
    const nowPrepared = wasPrepared !== state.isPrepared();
    if (nowPrepared) this.tracePrepared(state);
    const seal = this.unlessSigningFails(() => this.commitSeal(state.round, block));
    if (!seal) return true;
    if (nowPrepared) this.multicastCommit(state, block, seal);
    const local = this.unlessSigningFails(() => this.commitMessage(state.round, block, seal));
    if (!local) return true;
    state.addCommit(local);
    if (wasCommitted !== state.isCommitted()) this.importBlock(state);
    return true;
  }

  /** Besu's sendPrepare: the local prepare counts first (it may complete the quorum and send the commit), then goes out. */
  private sendPrepare(state: RoundState, block: ProposedBlock): void {
    const prepare = this.unlessSigningFails(
      (): PrepareMessage => ({ kind: 'prepare', signed: this.signed({ kind: 'prepare', sequence: this.height, round: state.round, digest: hexToBytes(block.digest) }) }),
    );
    if (!prepare) return;
    this.peerIsPrepared(state, prepare);
    this.emit({ type: 'broadcast', message: prepare });
  }

  private peerIsPrepared(state: RoundState, message: PrepareMessage): void {
    const wasPrepared = state.isPrepared();
    state.addPrepare(message);
    if (wasPrepared === state.isPrepared()) return;
    this.tracePrepared(state);
    const block = state.block!;
    const seal = this.unlessSigningFails(() => this.commitSeal(state.round, block));
    if (seal) this.multicastCommit(state, block, seal);
  }

  private peerIsCommitted(state: RoundState, message: CommitMessage): void {
    const wasCommitted = state.isCommitted();
    state.addCommit(message);
    if (wasCommitted !== state.isCommitted()) this.importBlock(state);
  }

  private tracePrepared(state: RoundState): void {
    this.trace({ kind: 'prepared', height: this.height, round: state.round, digest: state.block!.digest });
  }

  private multicastCommit(state: RoundState, block: ProposedBlock, seal: Uint8Array): void {
    const commit = this.unlessSigningFails(() => this.commitMessage(state.round, block, seal));
    if (commit) this.emit({ type: 'broadcast', message: commit });
  }

  /**
   * The round timer keeps running, as in Besu: if the import fails, its expiry starts a round change;
   * if it succeeds, the new chain head replaces this height manager and its timers.
   */
  private importBlock(state: RoundState): void {
    const block = state.block!;
    this.trace({ kind: 'committed', height: this.height, round: state.round, digest: block.digest, seals: state.commits.size });
    this.emit({ type: 'commitBlock', height: this.height, round: state.round, block, seals: state.commitSeals() });
  }

  // ---- prepares and commits (Besu's actionOrBufferMessage: any future round is buffered) ----

  private onPrepare(message: PrepareMessage): void {
    const { sequence, round } = message.signed.payload;
    const state = this.stateForMessage(sequence, round);
    if (!state) return;
    if (state === this.current) this.peerIsPrepared(state, message);
    else state.addPrepare(message);
  }

  private onCommit(message: CommitMessage): void {
    const { sequence, round } = message.signed.payload;
    const state = this.stateForMessage(sequence, round);
    if (!state) return;
    if (state === this.current) this.peerIsCommitted(state, message);
    else state.addCommit(message);
  }

  /** The current round's state, a buffered future round's state, or nothing for old rounds. */
  private stateForMessage(sequence: number, round: number): RoundState | undefined {
    if (sequence !== this.height) return undefined;
    const currentRound = this.current?.round ?? -1;
    if (round === currentRound) return this.current;
    if (round < currentRound) return undefined;
    let state = this.futureRounds.get(round);
    if (!state) {
      state = this.newRoundState(round);
      this.futureRounds.set(round, state);
    }
    return state;
  }

  // ---- round changes (Besu's doRoundChange, handleRoundChangePayload) ----

  private doRoundChange(newRound: number): void {
    if (!this.current || this.current.round >= newRound) return;
    const certificate = this.current.preparedCertificate();
    if (certificate) this.latestPrepared = certificate;
    this.startNewRound(newRound);
    const cert = this.latestPrepared;
    const message = this.unlessSigningFails((): RoundChangeMessage => this.roundChangeMessage(newRound, cert));
    if (!message) return;
    this.trace({ kind: 'round-change-sent', height: this.height, round: newRound, preparedRound: cert?.round ?? null });
    this.onRoundChange({ message, block: cert?.block }, false);
    this.emit({ type: 'broadcast', message });
  }

  private roundChangeMessage(round: number, cert: PreparedCertificate | undefined): RoundChangeMessage {
    const prepared = cert ? { preparedRound: cert.round, preparedBlockHash: hexToBytes(cert.block.digest) } : undefined;
    return {
      kind: 'roundChange',
      signed: this.signed({ kind: 'roundChange', sequence: this.height, round, prepared }),
      preparedBlockRlp: cert?.block.rlp,
      prepares: cert ? cert.prepares : [],
    };
  }

  private onRoundChange(entry: CollectedRoundChange, blockInvalid: boolean): void {
    const { round: target, sequence } = entry.message.signed.payload;
    if (sequence !== this.height) return;
    const verdict = validateRoundChange(this.vctx, entry.message, entry.block, blockInvalid);
    this.traceDecision('roundChange', entry.message, target, verdict);
    if (!verdict.ok) return;
    this.rcManager.noteLatest(entry.message.signed.author, target);
    const currentRound = this.current?.round ?? -1;
    if (target < currentRound) return;
    const certificate = this.rcManager.append(entry);
    if (this.cfg.earlyRoundChange) this.afterRoundChangeEarly(target, certificate);
    else if (certificate) {
      if (target > currentRound) this.startNewRound(target);
      if (this.isProposerFor(target)) this.startRoundWith(target, certificate);
    }
  }

  private afterRoundChangeEarly(target: number, certificate: CollectedRoundChange[] | undefined): void {
    if (!this.current) this.startNewRound(0);
    const current = this.current!;
    if (certificate && target === current.round && this.isProposerFor(target)) this.startRoundWith(target, certificate);
    const higher = this.rcManager.futureRoundWithQuorum(current.round, earlyRoundChangeQuorum(this.ctx.validators.length));
    if (higher === undefined) return;
    this.trace({ kind: 'early-round-change', height: this.height, from: current.round, to: higher });
    this.doRoundChange(higher);
  }

  /** As the proposer of `round` with a round-change certificate: re-propose the best prepared block or build anew. */
  private startRoundWith(round: number, certificate: CollectedRoundChange[]): void {
    if (!this.current || this.current.round !== round || this.current.proposal) return;
    let best: CollectedRoundChange | undefined;
    for (const entry of certificate) {
      const prepared = entry.message.signed.payload.prepared;
      if (!prepared || !entry.block) continue;
      if (!best || prepared.preparedRound > best.message.signed.payload.prepared!.preparedRound) best = entry;
    }
    this.pending = {
      round,
      roundChanges: certificate.map((e) => e.message.signed),
      prepares: best ? best.message.prepares : [],
      emptyCheck: false,
      timerAtMs: this.nowMs,
    };
    // Besu re-proposes the prepared block with only its round replaced: its
    // replaceRoundAndProposerForProposalBlock ignores the proposer, for compatibility.
    this.emit({ type: 'createBlock', height: this.height, round, timestampSeconds: Math.floor(this.nowMs / 1000), repropose: best?.block });
  }
}

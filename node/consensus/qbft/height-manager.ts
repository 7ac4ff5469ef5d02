/**
 * The QBFT state machine for one block height (Besu's QbftBlockHeightManager and QbftRound
 * folded together). Pure: `handle(event)` returns the actions to perform. A new instance is made
 * for every height, when the node's chain head changes.
 */
import { hexToBytes, type Hex } from '../../crypto/bytes.ts';
import { recoverAddressForHexHash, signRemembered } from './signer-cache.ts';
import type { CoreAction, CoreConfig, CoreEvent, HeightContext, ProposedBlock } from './core-types.ts';
import type { ConsensusTraceEvent } from '../../runtime/trace-events.ts';
import {
  signPayload,
  type CommitMessage,
  type PrepareMessage,
  type PreparePayload,
  type ProposalMessage,
  type RoundChangeMessage,
  type RoundChangePayload,
  type Signed,
} from './messages.ts';
import { earlyRoundChangeQuorum, quorumSize } from './quorum.ts';
import { RoundState, type PreparedCertificate } from './round-state.ts';
import { RoundChangeManager, type CollectedRoundChange } from './round-change-manager.ts';
import { expectedProposer, validateProposal, validateRoundChange, type ValidationContext } from './validation.ts';

export interface HeldState {
  /** Target rounds with a round-change collection. */
  roundChangeRounds: number;
  highestRoundChangeRound: number;
  /** Future rounds with buffered prepares or commits. */
  futureRoundStates: number;
}

interface PendingProposal {
  round: number;
  roundChanges: Signed<RoundChangePayload>[];
  prepares: Signed<PreparePayload>[];
}

export class HeightManager {
  readonly height: number;
  private readonly quorum: number;
  private readonly validatorSet: Set<Hex>;
  private readonly vctx: ValidationContext;
  private readonly rcManager: RoundChangeManager;
  private current: RoundState | undefined;
  private readonly futureRounds = new Map<number, RoundState>();
  private latestPrepared: PreparedCertificate | undefined;
  private pending: PendingProposal | undefined;
  private out: CoreAction[] = [];
  private nowMs = 0;

  constructor(
    private readonly cfg: CoreConfig,
    readonly ctx: HeightContext,
  ) {
    this.height = ctx.height;
    this.quorum = quorumSize(ctx.validators.length);
    this.validatorSet = new Set(ctx.validators);
    this.vctx = { height: ctx.height, validators: ctx.validators, parentCoinbase: ctx.parentCoinbase, maxRound: cfg.maxRound, bugs: cfg.bugs };
    this.rcManager = new RoundChangeManager(this.quorum);
  }

  /** Actions to take when this height begins. */
  start(nowMs: number): CoreAction[] {
    this.nowMs = nowMs;
    this.emit({ type: 'setBlockTimer', height: this.height, atMs: this.ctx.blockTimerAtMs });
    // besu-2095: round 0 (and its round timer) began with the height, not when the block timer expired.
    if (this.cfg.bugs.has('besu-2095') && this.isLocalValidator()) this.startNewRound(0);
    return this.flush();
  }

  currentRound(): number | undefined {
    return this.current?.round;
  }

  /** What this height holds per round (for the simulator's bounded-state check and for stats). */
  heldState(): HeldState {
    return { roundChangeRounds: this.rcManager.roundsHeld(), highestRoundChangeRound: this.rcManager.highestRound(), futureRoundStates: this.futureRounds.size };
  }

  isLocalValidator(): boolean {
    return this.validatorSet.has(this.cfg.address);
  }

  handle(event: CoreEvent): CoreAction[] {
    this.nowMs = event.nowMs;
    switch (event.type) {
      case 'newHeight':
        break;
      case 'blockTimerExpired':
        if (event.height === this.height) this.onBlockTimer();
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

  private isProposerFor(round: number): boolean {
    return expectedProposer(this.vctx, round) === this.cfg.address;
  }

  /**
   * Any round up to maxRound, as Besu (no window around the current round). besu-ghsa-23rh: before the
   * fix, round changes for any round were kept, one collection per distinct round.
   */
  private roundAllowed(round: number, kind: 'roundChange' | 'other'): boolean {
    if (round < 0) return false;
    return round <= this.cfg.maxRound || (kind === 'roundChange' && this.cfg.bugs.has('ghsa-23rh'));
  }

  private newRoundState(round: number): RoundState {
    return new RoundState(
      this.height,
      round,
      this.quorum,
      (a) => this.validatorSet.has(a),
      (seal, digest) => recoverAddressForHexHash(digest, seal),
      this.cfg.bugs.has('besu-2449'),
    );
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

  private onBlockTimer(): void {
    const roundZeroWaiting = this.cfg.bugs.has('besu-2095') && this.current?.round === 0 && !this.current.proposal && !this.pending;
    if (this.current && !roundZeroWaiting) return;
    if (!this.current) this.startNewRound(0);
    if (!this.isProposerFor(0)) return;
    this.pending = { round: 0, roundChanges: [], prepares: [] };
    // Rounded, not truncated (Besu PR #2265): a block timer that fires a few ms early still gives parent + period.
    // besu-2241: truncated, so an early timer gave parent + period - 1 and every peer rejected the proposal.
    const seconds = this.cfg.bugs.has('besu-2241') ? Math.floor(this.nowMs / 1000) : Math.round(this.nowMs / 1000);
    this.emit({ type: 'createBlock', height: this.height, round: 0, timestampSeconds: seconds });
  }

  private onBlockCreated(round: number, block: ProposedBlock): void {
    const pending = this.pending;
    if (!pending || pending.round !== round || !this.current || this.current.round !== round || this.current.proposal) return;
    this.pending = undefined;
    if (round === 0 && block.txCount === 0 && this.ctx.emptyBlockPeriodSeconds > 0) {
      const emptyDeadlineMs = (this.ctx.parentTimestampSeconds + this.ctx.emptyBlockPeriodSeconds) * 1000;
      if (this.nowMs <= emptyDeadlineMs) {
        const atMs = Math.min(emptyDeadlineMs, this.nowMs + this.ctx.blockPeriodSeconds * 1000);
        this.emit({ type: 'setBlockTimer', height: this.height, atMs });
        this.emit({ type: 'cancelRoundTimer', height: this.height });
        this.current = undefined;
        this.trace({ kind: 'empty-block-deferred', height: this.height, untilMs: atMs });
        return;
      }
    }
    const signed = signPayload(
      { kind: 'proposal', sequence: this.height, round, blockRlp: block.rlp },
      this.cfg.privateKey,
      this.cfg.layout,
    );
    const proposal: ProposalMessage = { kind: 'proposal', signed, roundChanges: pending.roundChanges, prepares: pending.prepares };
    this.emit({ type: 'broadcast', message: proposal });
    this.trace({ kind: 'proposal-sent', height: this.height, round, digest: block.digest, txs: block.txCount });
    this.acceptProposal(proposal, block);
  }

  private onProposal(message: ProposalMessage, block: ProposedBlock | undefined): void {
    const { round, sequence } = message.signed.payload;
    if (sequence !== this.height || !this.roundAllowed(round, 'other')) return;
    const currentRound = this.current?.round ?? -1;
    if (round < currentRound) return;
    if (!block) {
      this.trace({ kind: 'message-rejected', height: this.height, type: 'proposal', round, author: message.signed.author, reason: 'invalid block' });
      return;
    }
    const verdict = validateProposal(this.vctx, message, block);
    if (!verdict.ok) {
      this.trace({ kind: 'message-rejected', height: this.height, type: 'proposal', round, author: message.signed.author, reason: verdict.reason });
      return;
    }
    if (round > currentRound) this.startNewRound(round);
    this.acceptProposal(message, block);
  }

  /**
   * As Besu's QbftRound.updateStateWithProposedBlock: the local commit (and its seal) counts toward
   * the commit quorum as soon as the proposal is accepted; it is broadcast only once prepared.
   */
  private acceptProposal(message: ProposalMessage, block: ProposedBlock): void {
    const state = this.current;
    if (!state || !state.setProposal(message, block)) return;
    state.localCommit = this.localCommit(state.round, block);
    state.addCommit(state.localCommit);
    const prepare: PrepareMessage = {
      kind: 'prepare',
      signed: signPayload({ kind: 'prepare', sequence: this.height, round: state.round, digest: hexToBytes(block.digest) }, this.cfg.privateKey),
    };
    state.prepareSent = true;
    this.emit({ type: 'broadcast', message: prepare });
    state.addPrepare(prepare);
    this.afterRoundProgress(state);
  }

  private onPrepare(message: PrepareMessage): void {
    const state = this.stateForMessage(message.signed.payload.sequence, message.signed.payload.round);
    if (!state) return;
    state.addPrepare(message);
    if (state === this.current) this.afterRoundProgress(state);
  }

  private onCommit(message: CommitMessage): void {
    const state = this.stateForMessage(message.signed.payload.sequence, message.signed.payload.round);
    if (!state) return;
    state.addCommit(message);
    if (state === this.current) this.afterRoundProgress(state);
  }

  /** The current round's state, a buffered future round's state, or nothing for old rounds. */
  private stateForMessage(sequence: number, round: number): RoundState | undefined {
    if (sequence !== this.height || !this.roundAllowed(round, 'other')) return undefined;
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

  private localCommit(round: number, block: ProposedBlock): CommitMessage {
    const sealHash = block.digestForRound(round);
    return {
      kind: 'commit',
      signed: signPayload(
        { kind: 'commit', sequence: this.height, round, digest: hexToBytes(block.digest), commitSeal: signRemembered(hexToBytes(sealHash), this.cfg.privateKey) },
        this.cfg.privateKey,
      ),
    };
  }

  private afterRoundProgress(state: RoundState): void {
    if (state.block && state.isPrepared() && !state.commitSent) {
      state.commitSent = true;
      this.trace({ kind: 'prepared', height: this.height, round: state.round, digest: state.block.digest });
      this.emit({ type: 'broadcast', message: state.localCommit ?? this.localCommit(state.round, state.block) });
    }
    // The round timer keeps running, as in Besu: if the import fails, its expiry starts a round change;
    // if it succeeds, the new chain head replaces this height manager and its timers.
    if (state.block && state.isCommitted() && !state.committed) {
      state.committed = true;
      this.trace({ kind: 'committed', height: this.height, round: state.round, digest: state.block.digest, seals: state.commits.size });
      this.emit({ type: 'commitBlock', height: this.height, round: state.round, block: state.block, seals: state.commitSeals() });
    }
  }

  private doRoundChange(newRound: number): void {
    if (!this.current || this.current.round >= newRound || newRound > this.cfg.maxRound) return;
    const certificate = this.current.preparedCertificate();
    if (certificate) this.latestPrepared = certificate;
    this.startNewRound(newRound);
    const cert = this.latestPrepared;
    const signed = signPayload(
      {
        kind: 'roundChange',
        sequence: this.height,
        round: newRound,
        prepared: cert ? { preparedRound: cert.round, preparedBlockHash: hexToBytes(cert.block.digest) } : undefined,
      },
      this.cfg.privateKey,
    );
    const message: RoundChangeMessage = {
      kind: 'roundChange',
      signed,
      preparedBlockRlp: cert?.block.rlp,
      prepares: cert ? cert.prepares : [],
    };
    this.trace({ kind: 'round-change-sent', height: this.height, round: newRound, preparedRound: cert?.round ?? null });
    this.onRoundChange({ message, block: cert?.block }, false);
    this.emit({ type: 'broadcast', message });
  }

  private onRoundChange(entry: CollectedRoundChange, blockInvalid: boolean): void {
    const { round: target, sequence } = entry.message.signed.payload;
    if (sequence !== this.height || !this.roundAllowed(target, 'roundChange')) return;
    const currentRound = this.current?.round ?? -1;
    if (target < currentRound) return;
    const verdict = validateRoundChange(this.vctx, entry.message, entry.block, blockInvalid);
    if (!verdict.ok) {
      this.trace({ kind: 'message-rejected', height: this.height, type: 'roundChange', round: target, author: entry.message.signed.author, reason: verdict.reason });
      return;
    }
    const certificate = this.rcManager.append(entry);

    if (!this.cfg.earlyRoundChange) {
      if (!certificate) return;
      if (target > currentRound) this.startNewRound(target);
      if (this.isProposerFor(target)) this.startRoundWith(target, certificate);
      return;
    }

    if (!this.current) this.startNewRound(0);
    if (certificate && target === this.current!.round && this.isProposerFor(target)) this.startRoundWith(target, certificate);
    const higher = this.rcManager.futureRoundWithQuorum(this.current!.round, earlyRoundChangeQuorum(this.ctx.validators.length));
    if (higher !== undefined) {
      this.trace({ kind: 'early-round-change', height: this.height, from: this.current!.round, to: higher });
      this.doRoundChange(higher);
    }
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
    };
    this.emit({
      type: 'createBlock',
      height: this.height,
      round,
      timestampSeconds: Math.floor(this.nowMs / 1000),
      repropose: best?.block,
    });
  }
}

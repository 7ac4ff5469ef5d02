/**
 * Drives the pure QBFT state machine inside a node (Besu's QbftController): duplicate filter,
 * future-height buffer, gossip, block validation before proposals reach the machine, timers,
 * and turning the machine's actions into effects. Everything runs through one serial queue, so
 * the order of effects depends on the order of inputs only.
 */
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import { keccak256 } from '../crypto/keccak.ts';
import type { Clock, Log, PeerId, TimerHandle, Timers } from '../runtime/ports.ts';
import type { CoreAction, CoreConfig, CoreEvent, HeightContext } from './qbft/core-types.ts';
import { HeightManager, type HeldState } from './qbft/height-manager.ts';
import { decodeMessage, encodeMessage, messageCode, roundIdOf, type QbftMessage } from './qbft/messages.ts';
import type { NodeProposedBlock } from './proposed-block.ts';
import { BoundedSet } from '../collections/bounded-set.ts';

export interface QbftLimits {
  duplicateMessageLimit: number;
  futureMessagesLimit: number;
  futureMessagesMaxDistance: number;
  /** Besu's gossipedhistorylimit: messages this node sent or gossiped, never gossiped again while remembered. Default 1000. */
  gossipedHistoryLimit?: number;
  /**
   * Besu's messagequeuelimit: events (messages, timer expiries, new chain heads) waiting to be
   * handled; an event that finds more than this many waiting is dropped. Default 1000.
   */
  messageQueueLimit?: number;
}

export interface QbftServiceDeps {
  cfg: CoreConfig;
  clock: Clock;
  timers: Timers;
  log: Log;
  limits: QbftLimits;
  /** Re-gossip accepted messages to other peers, as Besu does. */
  gossip: boolean;
  /** Decodes and fully validates a proposed block on top of the current head; undefined when invalid. */
  validateBlock(rlp: Uint8Array, height: number): Promise<NodeProposedBlock | undefined>;
  createBlock(req: { height: number; round: number; timestampSeconds: number; repropose?: NodeProposedBlock }): Promise<NodeProposedBlock>;
  commitBlock(block: NodeProposedBlock, round: number, seals: Uint8Array[]): Promise<void>;
  /** A peer sent a consensus message for a future height: its chain reaches at least `number` (tells sync). */
  onPeerAhead?(peer: PeerId, number: number): void;
  /** The chain head's number: timer expiries and messages at or below it are stale when they arrive (Besu's QbftController). */
  headNumber(): number;
  /**
   * Sends a QBFT message to the connected peers whose address is one of `validators` (Besu's
   * ValidatorPeers: consensus messages go to validator peers only), except those listed.
   */
  multicast(code: number, data: Uint8Array, except: PeerId[], validators: readonly Hex[]): void;
  peerOf(address: Hex): PeerId | undefined;
}

interface BufferedMessage {
  from: PeerId;
  message: QbftMessage;
  sizeBytes: number;
  key: Hex;
}

/** Besu's FutureMessageBuffer byte cap (PR #10897), beside its message-count limit. */
export const FUTURE_MESSAGES_MAX_BYTES = 64 * 1024 * 1024;

export interface QbftStats {
  height: number;
  round: number | undefined;
  roundChanges: number;
  maxRound: number;
  rejected: number;
  malformed: number;
  /** Events dropped because more than `messageQueueLimit` were already waiting. */
  dropped: number;
}

/**
 * Decoded messages by content hash, shared by every node in the process: decoding (and recovering
 * authors) is a pure function of the bytes, and a simulated world delivers the same bytes to many
 * nodes. Bounded; malformed inputs are remembered as their error.
 */
const DECODED_CAP = 4096;
const decoded = new Map<string, QbftMessage | Error>();

function decodeShared(code: number, contentKey: string, data: Uint8Array): QbftMessage {
  const key = `${code}:${contentKey}`;
  let hit = decoded.get(key);
  if (hit === undefined) {
    try {
      hit = decodeMessage(code, data);
    } catch (err) {
      hit = err instanceof Error ? err : new Error(String(err));
    }
    if (decoded.size >= DECODED_CAP) decoded.delete(decoded.keys().next().value as string);
    decoded.set(key, hit);
  }
  if (hit instanceof Error) throw hit;
  return hit;
}

/**
 * Content keys by buffer identity: a transport that hands the same (immutable) buffer to many
 * receivers, as the simulator does, pays for hashing it once. Nothing here mutates message buffers.
 */
const contentKeys = new WeakMap<Uint8Array, string>();

function contentKeyOf(data: Uint8Array): string {
  let key = contentKeys.get(data);
  if (key === undefined) {
    key = bytesToHex(keccak256(data));
    contentKeys.set(data, key);
  }
  return key;
}

export class QbftService {
  private manager: HeightManager | undefined;
  private queue: Promise<void> = Promise.resolve();
  /** Jobs queued or running: an immediate job may start at once only when there are none. */
  private jobs = 0;
  private readonly seen: BoundedSet;
  /** Besu's UniqueMessageMulticaster: what this node sent or gossiped. */
  private readonly gossiped: BoundedSet;
  /** Events queued and not yet started (Besu's BftEventQueue size). */
  private waitingEvents = 0;
  private readonly future = new Map<number, BufferedMessage[]>();
  private futureCount = 0;
  private futureBytes = 0;
  private heightStarted = false;
  private blockTimer: TimerHandle | undefined;
  private roundTimer: TimerHandle | undefined;
  private stopped = false;
  readonly stats: QbftStats = { height: 0, round: undefined, roundChanges: 0, maxRound: 0, rejected: 0, malformed: 0, dropped: 0 };

  constructor(private readonly deps: QbftServiceDeps) {
    this.seen = new BoundedSet(deps.limits.duplicateMessageLimit);
    this.gossiped = new BoundedSet(deps.limits.gossipedHistoryLimit ?? 1000);
  }

  /**
   * Runs `job` after every job before it. A deferred job starts in a later microtask, as an event
   * Besu's processor thread takes from its queue. An `immediate` job that finds nothing queued or
   * running starts at once, so a message that is a duplicate, stale or for a future height is
   * handled without a promise (the simulator delivers hundreds of thousands of those per block
   * at 100 validators); it still counts as running until its promise settles.
   */
  private enqueue(job: () => Promise<void> | void, immediate = false): Promise<void> | void {
    if (immediate && this.jobs === 0) return this.runNow(job);
    this.jobs++;
    const run = this.queue.then(async () => {
      try {
        if (!this.stopped) await job();
      } catch (err) {
        this.logJobError(err);
      } finally {
        this.jobs--;
      }
    });
    this.queue = run;
    return run;
  }

  private runNow(job: () => Promise<void> | void): Promise<void> | void {
    if (this.stopped) return;
    this.jobs++;
    let result: Promise<void> | void;
    try {
      result = job();
    } catch (err) {
      this.jobs--;
      return this.logJobError(err);
    }
    if (result === undefined) {
      this.jobs--;
      return;
    }
    const run = result.then(
      () => void this.jobs--,
      (err: unknown) => {
        this.jobs--;
        this.logJobError(err);
      },
    );
    this.queue = run;
    return run;
  }

  private logJobError(err: unknown): void {
    this.deps.log.log('error', 'qbft job failed', { error: String((err as Error)?.stack ?? err) });
  }

  /**
   * Besu's BftEventQueue.add: every event, whatever its kind, is dropped when more than
   * `messageQueueLimit` events already wait (a strict comparison, so limit + 1 can wait).
   */
  private enqueueEvent(job: () => Promise<void> | void, immediate = false): Promise<void> | void {
    if (this.waitingEvents > (this.deps.limits.messageQueueLimit ?? 1000)) {
      this.stats.dropped++;
      return;
    }
    this.waitingEvents++;
    return this.enqueue(() => {
      this.waitingEvents--;
      return job();
    }, immediate);
  }

  /** A new chain head: start the next height (or idle if this node is not a validator for it). */
  onNewHead(ctx: HeightContext): Promise<void> | void {
    return this.enqueueEvent(() => this.startHeight(ctx));
  }

  /** A message off the wire; the transport calls this with nothing of the node's on the stack. */
  onMessage(from: PeerId, code: number, data: Uint8Array): Promise<void> | void {
    return this.enqueueEvent(() => this.receive(from, code, data), true);
  }

  /** A block timer expiry for `height` and `round`, as the node's own timer delivers it (Besu's BlockTimerExpiry). */
  onBlockTimerExpiry(height: number, round: number): Promise<void> | void {
    return this.enqueueEvent(() => this.blockTimerExpired(height, round), true);
  }

  /** A round timer expiry for `height` and `round` (Besu's RoundExpiry). */
  onRoundExpiry(height: number, round: number): Promise<void> | void {
    return this.enqueueEvent(() => this.roundExpired(height, round), true);
  }

  /** Resolves once every queued event, and every event those queued, has been handled. */
  async settled(): Promise<void> {
    for (;;) {
      const tail = this.queue;
      await tail;
      if (tail === this.queue) return;
    }
  }

  /** Per-round state the current height holds (none when this node is not a validator for it). */
  heldState(): HeldState {
    return this.manager?.heldState() ?? { roundChangeRounds: 0, highestRoundChangeRound: -1, futureRoundStates: 0, byAuthor: [] };
  }

  /** Cancels the block and round timers; the height manager stays (a known-bug switch uses this). */
  suspendTimers(): void {
    void this.enqueue(() => {
      if (this.blockTimer !== undefined) this.deps.timers.cancelTimer(this.blockTimer);
      if (this.roundTimer !== undefined) this.deps.timers.cancelTimer(this.roundTimer);
      this.blockTimer = this.roundTimer = undefined;
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.blockTimer !== undefined) this.deps.timers.cancelTimer(this.blockTimer);
    if (this.roundTimer !== undefined) this.deps.timers.cancelTimer(this.roundTimer);
  }

  private now(): number {
    return this.deps.clock.nowMs();
  }

  private async startHeight(ctx: HeightContext): Promise<void> {
    // Besu's controller ignores a new head that is not above the current height's parent.
    if (this.heightStarted && ctx.height <= this.stats.height) {
      this.deps.log.trace({ kind: 'new-head-ignored', height: ctx.height, current: this.stats.height });
      return;
    }
    this.heightStarted = true;
    const previous = this.manager;
    if (this.deps.cfg.hooks.blockTimerBeforeNewHead && previous && this.blockTimer !== undefined && previous.currentRound() === undefined) {
      this.deps.timers.cancelTimer(this.blockTimer);
      this.blockTimer = undefined;
      await this.actOnBlockTimer(previous, previous.height, 0);
    }
    if (this.blockTimer !== undefined) this.deps.timers.cancelTimer(this.blockTimer);
    if (this.roundTimer !== undefined) this.deps.timers.cancelTimer(this.roundTimer);
    this.blockTimer = this.roundTimer = undefined;
    this.stats.height = ctx.height;
    this.stats.round = undefined;
    const isValidator = ctx.validators.includes(this.deps.cfg.address);
    this.manager = isValidator ? new HeightManager(this.deps.cfg, ctx) : undefined;
    for (const h of [...this.future.keys()]) if (h < ctx.height) this.dropFutureHeight(h);
    const buffered = this.future.get(ctx.height) ?? [];
    this.dropFutureHeight(ctx.height);
    if (!this.manager) return;
    await this.perform(this.manager.start(this.now()));
    for (const b of buffered) await this.process(b.from, b.message, b.key);
  }

  private receive(from: PeerId, code: number, data: Uint8Array): Promise<void> | void {
    const key = contentKeyOf(data);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    let message: QbftMessage;
    try {
      message = decodeShared(code, key, data);
    } catch (err) {
      this.stats.malformed++;
      this.deps.log.trace({ kind: 'message-malformed', from, code, reason: String((err as Error).message) });
      return;
    }
    const height = roundIdOf(message).sequence;
    const current = this.stats.height;
    if (height < current) return;
    if (height > current) {
      this.buffer(height, from, message, data.length, key as Hex);
      return;
    }
    return this.process(from, message, key as Hex, data);
  }

  /**
   * Besu's FutureMessageBuffer: heights up to futuremessagesmaxdistance above the current one are
   * kept; when over the count limit or the byte cap, the whole highest height goes, or, with one
   * height left, its oldest message.
   */
  private buffer(height: number, from: PeerId, message: QbftMessage, sizeBytes: number, key: Hex): void {
    const { futureMessagesMaxDistance, futureMessagesLimit } = this.deps.limits;
    // Besu tells sync of every future message, buffered or not: a node that missed a block catches up.
    this.deps.onPeerAhead?.(from, height - 1);
    if (futureMessagesLimit <= 0 || height - this.stats.height > futureMessagesMaxDistance) return;
    let list = this.future.get(height);
    if (!list) this.future.set(height, (list = []));
    list.push({ from, message, sizeBytes, key });
    this.futureCount++;
    this.futureBytes += sizeBytes;
    while (this.futureCount > futureMessagesLimit || this.futureBytes > FUTURE_MESSAGES_MAX_BYTES) {
      const heights = [...this.future.keys()];
      const highest = Math.max(...heights);
      if (heights.length > 1) this.dropFutureHeight(highest);
      else {
        const oldest = this.future.get(highest)!.shift()!;
        this.futureCount--;
        this.futureBytes -= oldest.sizeBytes;
        if (this.future.get(highest)!.length === 0) this.future.delete(highest);
      }
    }
  }

  private dropFutureHeight(height: number): void {
    const list = this.future.get(height);
    if (!list) return;
    this.futureCount -= list.length;
    for (const m of list) this.futureBytes -= m.sizeBytes;
    this.future.delete(height);
  }

  /** Besu's controller drops a message whose signer is not a validator of its height (traced for the acceptance checker). */
  private traceNonValidator(manager: HeightManager, message: QbftMessage, key: Hex): void {
    const { round } = roundIdOf(message);
    this.stats.rejected++;
    this.deps.log.trace({ kind: 'message-rejected', height: manager.height, type: message.kind, round, author: message.signed.author, reason: 'author is not a validator', rule: 'author-not-validator', key });
  }

  private async process(from: PeerId, message: QbftMessage, key: Hex, raw?: Uint8Array): Promise<void> {
    const manager = this.manager;
    if (!manager) return;
    // Replayed future messages pass here too: a block imported meanwhile makes them stale (Besu's consumeMessage).
    if (roundIdOf(message).sequence <= this.deps.headNumber()) return;
    const author = message.signed.author;
    if (!manager.ctx.validators.includes(author) && this.deps.cfg.hooks.ruleEnforced('author-not-validator')) {
      this.traceNonValidator(manager, message, key);
      return;
    }
    if (this.deps.gossip && author !== this.deps.cfg.address) {
      const data = raw ?? encodeMessage(message, this.deps.cfg.layout);
      const gossipKey = contentKeyOf(data);
      if (!this.gossiped.has(gossipKey)) {
        this.gossiped.add(gossipKey);
        const except = [from];
        const authorPeer = this.deps.peerOf(author);
        if (authorPeer !== undefined) except.push(authorPeer);
        this.deps.multicast(messageCode(message), data, except, manager.ctx.validators);
      }
    }
    const nowMs = this.now();
    let event: CoreEvent;
    switch (message.kind) {
      case 'proposal': {
        const block = await this.deps.validateBlock(message.signed.payload.blockRlp, manager.height);
        event = { type: 'proposal', nowMs, message, block, key };
        break;
      }
      case 'roundChange': {
        const rlp = message.preparedBlockRlp;
        const block = rlp ? await this.deps.validateBlock(rlp, manager.height) : undefined;
        event = { type: 'roundChange', nowMs, message, block, blockInvalid: rlp !== undefined && block === undefined, key };
        break;
      }
      case 'prepare':
        event = { type: 'prepare', nowMs, message, key };
        break;
      case 'commit':
        event = { type: 'commit', nowMs, message, key };
        break;
    }
    await this.feed(manager, event);
  }

  /**
   * Besu's QbftController.handleBlockTimerExpiry / handleRoundExpiry: an expiry for a height the
   * chain already holds, or for another height than the current one, is dropped when it arrives.
   * Nothing later re-checks: a block built or validated while sync imports the height still goes out.
   */
  private blockTimerExpired(height: number, round: number): Promise<void> | void {
    if (height <= this.deps.headNumber() || this.manager?.height !== height) return;
    return this.actOnBlockTimer(this.manager, height, round);
  }

  private roundExpired(height: number, round: number): Promise<void> | void {
    if (height <= this.deps.headNumber() || this.manager?.height !== height) return;
    return this.actOnRoundTimer(this.manager, height, round);
  }

  /** The expiry reaches the height manager: traced here only, so the checkers see what was acted on. */
  private actOnBlockTimer(manager: HeightManager, height: number, round: number): Promise<void> {
    this.deps.log.trace({ kind: 'block-timer-expired', height });
    return this.feed(manager, { type: 'blockTimerExpired', nowMs: this.now(), height, round });
  }

  private actOnRoundTimer(manager: HeightManager, height: number, round: number): Promise<void> {
    this.deps.log.trace({ kind: 'round-timer-expired', height, round });
    return this.feed(manager, { type: 'roundTimerExpired', nowMs: this.now(), height, round });
  }

  private async feed(manager: HeightManager, event: CoreEvent): Promise<void> {
    if (manager !== this.manager) return;
    await this.perform(manager.handle(event));
  }

  private async perform(actions: CoreAction[]): Promise<void> {
    const manager = this.manager;
    for (const action of actions) {
      // A job runs to its end before the next starts, so the height manager cannot change under it.
      if (manager !== this.manager) throw new Error('height manager replaced during its own event');
      switch (action.type) {
        case 'broadcast': {
          const data = encodeMessage(action.message, this.deps.cfg.layout);
          const key = contentKeyOf(data);
          this.seen.add(key);
          this.gossiped.add(key);
          if (manager) this.deps.multicast(messageCode(action.message), data, [], manager.ctx.validators);
          break;
        }
        case 'setBlockTimer': {
          if (this.blockTimer !== undefined) this.deps.timers.cancelTimer(this.blockTimer);
          const height = action.height;
          const delayMs = action.atMs - this.now();
          this.deps.log.trace({ kind: 'block-timer-set', height, atMs: action.atMs, delayMs });
          this.blockTimer = this.deps.timers.setTimer(delayMs, () => {
            this.blockTimer = undefined;
            return this.onBlockTimerExpiry(height, 0);
          });
          break;
        }
        case 'setRoundTimer': {
          if (this.roundTimer !== undefined) this.deps.timers.cancelTimer(this.roundTimer);
          const { height, round } = action;
          this.stats.round = round;
          if (round > 0) this.stats.roundChanges++;
          if (round > this.stats.maxRound) this.stats.maxRound = round;
          this.roundTimer = this.deps.timers.setTimer(action.delayMs, () => {
            this.roundTimer = undefined;
            return this.onRoundExpiry(height, round);
          });
          break;
        }
        case 'cancelRoundTimer':
          if (this.roundTimer !== undefined) this.deps.timers.cancelTimer(this.roundTimer);
          this.roundTimer = undefined;
          break;
        case 'createBlock': {
          const block = await this.deps.createBlock({
            height: action.height,
            round: action.round,
            timestampSeconds: action.timestampSeconds,
            repropose: action.repropose as NodeProposedBlock | undefined,
          });
          if (manager) await this.feed(manager, { type: 'blockCreated', nowMs: this.now(), height: action.height, round: action.round, block });
          break;
        }
        case 'commitBlock':
          await this.deps.commitBlock(action.block as NodeProposedBlock, action.round, action.seals);
          if (this.deps.cfg.hooks.roundExpiryAfterImport && manager && this.roundTimer !== undefined) {
            this.deps.timers.cancelTimer(this.roundTimer);
            this.roundTimer = undefined;
            await this.actOnRoundTimer(manager, action.height, action.round);
          }
          break;
        case 'trace':
          if (action.event.kind === 'message-rejected') this.stats.rejected++;
          this.deps.log.trace(action.event);
          break;
      }
    }
  }
}

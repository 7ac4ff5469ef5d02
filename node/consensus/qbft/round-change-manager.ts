/**
 * Collects valid ROUND_CHANGE messages per target round (first one per author kept) and reports
 * the certificate once a round reaches quorum. Also answers the early-round-change question:
 * have f+1 validators asked for some round above ours? As Besu's RoundChangeManager, it keeps the
 * latest round change received from each author (a later, lower round replaces a higher one).
 */
import type { Hex } from '../../crypto/bytes.ts';
import type { RoundChangeMessage } from './messages.ts';
import type { ProposedBlock } from './core-types.ts';

export interface CollectedRoundChange {
  message: RoundChangeMessage;
  block: ProposedBlock | undefined;
}

interface RoundCollection {
  byAuthor: Map<Hex, CollectedRoundChange>;
  actioned: boolean;
}

export class RoundChangeManager {
  private readonly rounds = new Map<number, RoundCollection>();
  private readonly latestRoundOf = new Map<Hex, number>();

  constructor(private readonly quorum: number) {}

  /**
   * Records the round an author last asked for (Besu's storeAndLogRoundChangeSummary), for any valid
   * round change, prior rounds included.
   */
  noteLatest(author: Hex, round: number): void {
    this.latestRoundOf.set(author, round);
  }

  /** Adds a validated round change; returns the round's certificate the first time it reaches quorum. */
  append(entry: CollectedRoundChange): CollectedRoundChange[] | undefined {
    const { round } = entry.message.signed.payload;
    const author = entry.message.signed.author;

    let collection = this.rounds.get(round);
    if (!collection) {
      collection = { byAuthor: new Map(), actioned: false };
      this.rounds.set(round, collection);
    }
    if (!collection.byAuthor.has(author)) collection.byAuthor.set(author, entry);
    if (!collection.actioned && collection.byAuthor.size >= this.quorum) {
      collection.actioned = true;
      return [...collection.byAuthor.values()];
    }
    return undefined;
  }

  discardRoundsPriorTo(round: number): void {
    for (const r of [...this.rounds.keys()]) if (r < round) this.rounds.delete(r);
  }

  /** The lowest round above `currentRound` that at least `needed` validators have moved to, if any. */
  futureRoundWithQuorum(currentRound: number, needed: number): number | undefined {
    let count = 0;
    let lowest: number | undefined;
    for (const round of this.latestRoundOf.values()) {
      if (round <= currentRound) continue;
      count++;
      if (lowest === undefined || round < lowest) lowest = round;
    }
    return count >= needed ? lowest : undefined;
  }

  /** Per author: the distinct target rounds of the round changes kept, and their encoded bytes. */
  heldByAuthor(): Map<Hex, { rounds: number; bytes: number }> {
    const out = new Map<Hex, { rounds: number; bytes: number }>();
    for (const collection of this.rounds.values()) {
      for (const [author, { message }] of collection.byAuthor) {
        const held = out.get(author) ?? { rounds: 0, bytes: 0 };
        held.rounds++;
        held.bytes += roundChangeBytes(message);
        out.set(author, held);
      }
    }
    return out;
  }

  roundsHeld(): number {
    return this.rounds.size;
  }

  /** The highest target round with a collection, -1 when none. */
  highestRound(): number {
    let highest = -1;
    for (const r of this.rounds.keys()) if (r > highest) highest = r;
    return highest;
  }
}

function roundChangeBytes(m: RoundChangeMessage): number {
  return m.signed.encoded.length + (m.preparedBlockRlp?.length ?? 0) + m.prepares.reduce((sum, p) => sum + p.encoded.length, 0);
}

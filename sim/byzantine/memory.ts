/**
 * What a Byzantine node remembers of the wire: recent raw messages (to replay them later), and per
 * height the round changes, prepares, commit seals and proposed blocks it has seen, decoded only
 * for the message codes its behaviour asks for. Bounded: only the newest heights are kept.
 */
import { bytesToHex, type Hex } from '../../node/crypto/bytes.ts';
import { type QbftMessage, type PreparePayload, type RoundChangePayload, type Signed } from '../../node/consensus/qbft/messages.ts';
import type { RoundId } from './kit.ts';

export interface RecentMessage {
  code: number;
  data: Uint8Array;
  roundId: RoundId;
  own: boolean;
}

export interface SeenProposal {
  round: number;
  blockRlp: Uint8Array;
  author: Hex;
}

const RECENT_CAP = 64;
const HEIGHTS_KEPT = 3;

const key = (sequence: number, round: number) => `${sequence}/${round}`;

export class MessageMemory {
  /** The highest height this node has sent a message for. */
  height = 0;
  readonly recent: RecentMessage[] = [];
  private readonly roundChanges = new Map<string, Map<Hex, Signed<RoundChangePayload>>>();
  private readonly prepares = new Map<string, Map<Hex, Signed<PreparePayload>>>();
  private readonly seals = new Map<Hex, Map<Hex, Uint8Array>>();
  private readonly sealHeights = new Map<Hex, number>();
  private readonly proposals = new Map<number, SeenProposal[]>();
  /** Blocks this node proposed itself (its coinbase), by height. */
  readonly ownBlocks = new Map<number, Uint8Array>();

  remember(message: RecentMessage): void {
    this.recent.push(message);
    if (this.recent.length > RECENT_CAP) this.recent.shift();
  }

  noteOwnHeight(sequence: number): void {
    if (sequence <= this.height) return;
    this.height = sequence;
    const oldest = sequence - HEIGHTS_KEPT;
    const prune = <V>(m: Map<string, V>) => {
      for (const k of [...m.keys()]) if (Number(k.split('/')[0]) < oldest) m.delete(k);
    };
    prune(this.roundChanges);
    prune(this.prepares);
    for (const h of [...this.proposals.keys()]) if (h < oldest) this.proposals.delete(h);
    for (const h of [...this.ownBlocks.keys()]) if (h < oldest) this.ownBlocks.delete(h);
    for (const [digest, h] of [...this.sealHeights]) {
      if (h >= oldest) continue;
      this.sealHeights.delete(digest);
      this.seals.delete(digest);
    }
  }

  /** Keeps the parts of a decoded message later behaviours draw on. */
  observe(message: QbftMessage): void {
    const { sequence, round } = message.signed.payload;
    if (sequence < this.height - HEIGHTS_KEPT) return;
    switch (message.kind) {
      case 'roundChange':
        this.put(this.roundChanges, key(sequence, round), message.signed.author, message.signed);
        break;
      case 'prepare': {
        const digest = bytesToHex(message.signed.payload.digest);
        this.put(this.prepares, `${key(sequence, round)}/${digest}`, message.signed.author, message.signed);
        break;
      }
      case 'commit': {
        const digest = bytesToHex(message.signed.payload.digest);
        let byAuthor = this.seals.get(digest);
        if (!byAuthor) {
          this.seals.set(digest, (byAuthor = new Map()));
          this.sealHeights.set(digest, sequence);
        }
        if (!byAuthor.has(message.signed.author)) byAuthor.set(message.signed.author, message.signed.payload.commitSeal);
        break;
      }
      case 'proposal': {
        let list = this.proposals.get(sequence);
        if (!list) this.proposals.set(sequence, (list = []));
        if (list.length < 16) list.push({ round, blockRlp: message.signed.payload.blockRlp, author: message.signed.author });
        break;
      }
    }
  }

  private put<V>(m: Map<string, Map<Hex, V>>, k: string, author: Hex, value: V): void {
    let byAuthor = m.get(k);
    if (!byAuthor) m.set(k, (byAuthor = new Map()));
    if (!byAuthor.has(author)) byAuthor.set(author, value);
  }

  roundChangesFor(sequence: number, round: number): Signed<RoundChangePayload>[] {
    return [...(this.roundChanges.get(key(sequence, round))?.values() ?? [])];
  }

  preparesFor(sequence: number, round: number, digest: Hex): Signed<PreparePayload>[] {
    return [...(this.prepares.get(`${key(sequence, round)}/${digest}`)?.values() ?? [])];
  }

  /** Commit seals of other authors for a digest. */
  sealsFor(digest: Hex, except: Hex): Uint8Array[] {
    return [...(this.seals.get(digest) ?? new Map<Hex, Uint8Array>())].filter(([a]) => a !== except).map(([, s]) => s);
  }

  proposalsAt(sequence: number, round: number): SeenProposal[] {
    return (this.proposals.get(sequence) ?? []).filter((p) => p.round === round);
  }

  /** The latest proposal seen at a height for a round below `belowRound`. */
  proposalBefore(sequence: number, belowRound: number): SeenProposal | undefined {
    const list = (this.proposals.get(sequence) ?? []).filter((p) => p.round < belowRound);
    return list.sort((a, b) => b.round - a.round)[0];
  }
}

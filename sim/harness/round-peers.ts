/**
 * The remote validators seen from one round (Besu's RoundSpecificPeers): its proposer (undefined
 * when the node under test proposes it), the others, and the bulk injections and checks that
 * Besu's integration tests use.
 */
import type { Hex } from '../../node/crypto/bytes.ts';
import type { PreparePayload, QbftMessage, RoundChangePayload, Signed } from '../../node/consensus/qbft/messages.ts';
import type { NodeProposedBlock } from '../../node/node.ts';
import { MessageMismatch, type PreparedCertificate, type RoundId, type ValidatorPeer } from './validator-peer.ts';

export class RoundPeers {
  readonly nonProposers: ValidatorPeer[];

  constructor(
    readonly roundId: RoundId,
    /** The remote proposer of the round; undefined when the node under test is the proposer. */
    readonly proposer: ValidatorPeer | undefined,
    /** Every remote validator, in address order. */
    readonly all: ValidatorPeer[],
  ) {
    this.nonProposers = all.filter((p) => p !== proposer);
  }

  getProposer(): ValidatorPeer {
    if (!this.proposer) throw new Error(`the node under test proposes height ${this.roundId.height} round ${this.roundId.round}`);
    return this.proposer;
  }

  nonProposing(index: number): ValidatorPeer {
    const peer = this.nonProposers[index];
    if (!peer) throw new RangeError(`no non-proposing peer ${index} (there are ${this.nonProposers.length})`);
    return peer;
  }

  firstNonProposer(): ValidatorPeer {
    return this.nonProposing(0);
  }

  clearReceivedMessages(): void {
    for (const p of this.all) p.clearReceivedMessages();
  }

  /** Every peer's signature over `hash` (commit seals over a block's committed-seal hash). */
  sign(hash: Uint8Array): Uint8Array[] {
    return this.all.map((p) => p.sign(hash));
  }

  /** Every peer's commit seal for `block` committed in `round`. */
  commitSeals(block: NodeProposedBlock, round: number): Uint8Array[] {
    return this.all.map((p) => p.commitSeal(block, round));
  }

  async roundChange(id: RoundId): Promise<Signed<RoundChangePayload>[]> {
    return this.injectEach(this.all, async (p) => (await p.injectRoundChange(id)).signed);
  }

  async roundChangeForNonProposing(id: RoundId): Promise<Signed<RoundChangePayload>[]> {
    return this.injectEach(this.nonProposers, async (p) => (await p.injectRoundChange(id)).signed);
  }

  createSignedRoundChangePayload(id: RoundId, prepared?: PreparedCertificate): Signed<RoundChangePayload>[] {
    return this.all.map((p) => p.createRoundChange(id, prepared).signed);
  }

  createSignedPreparePayloadOfAllPeers(id: RoundId, digest: Hex): Signed<PreparePayload>[] {
    return this.all.map((p) => p.createPrepare(id, digest).signed);
  }

  async prepareForNonProposing(id: RoundId, digest: Hex): Promise<void> {
    await this.injectEach(this.nonProposers, (p) => p.injectPrepare(id, digest));
  }

  async commitForNonProposing(id: RoundId, block: NodeProposedBlock): Promise<void> {
    await this.injectEach(this.nonProposers, (p) => p.injectCommit(id, block));
  }

  async commit(id: RoundId, block: NodeProposedBlock): Promise<void> {
    await this.injectEach(this.all, (p) => p.injectCommit(id, block));
  }

  verifyNoMessagesReceived(): void {
    this.verify(this.all, []);
  }

  verifyNoMessagesReceivedNonProposing(): void {
    this.verify(this.nonProposers, []);
  }

  verifyNoMessagesReceivedProposer(): void {
    this.verify([this.getProposer()], []);
  }

  verifyMessagesReceived(...expected: QbftMessage[]): void {
    this.verify(this.all, expected);
  }

  verifyMessagesReceivedNonProposing(...expected: QbftMessage[]): void {
    this.verify(this.nonProposers, expected);
  }

  verifyMessagesReceivedNonProposingExcluding(excluded: ValidatorPeer, ...expected: QbftMessage[]): void {
    this.verify(this.nonProposers.filter((p) => p !== excluded), expected);
  }

  verifyMessagesReceivedProposer(...expected: QbftMessage[]): void {
    this.verify([this.getProposer()], expected);
  }

  private verify(peers: ValidatorPeer[], expected: QbftMessage[]): void {
    const problems: string[] = [];
    for (const p of peers) {
      try {
        p.verifyReceived(...expected);
      } catch (err) {
        if (!(err instanceof MessageMismatch)) throw err;
        problems.push(err.message);
      }
    }
    if (problems.length > 0) throw new MessageMismatch(problems.join('\n'));
  }

  /** One peer after another, never concurrently: the order is part of the test. */
  private async injectEach<T>(peers: ValidatorPeer[], action: (p: ValidatorPeer) => Promise<T>): Promise<T[]> {
    const results: T[] = [];
    for (const p of peers) results.push(await action(p));
    return results;
  }
}

/**
 * Scripted validator peers of a NodeUnderTest (Besu's ValidatorPeer and MessageFactory): each signs
 * QBFT messages with its own key, injects them into the node as a connected peer would, and records
 * every consensus message the node sent it, in order.
 */
import { hexToBytes, type Hex } from '../../node/crypto/bytes.ts';
import { keccak256 } from '../../node/crypto/keccak.ts';
import { privateKeyToAddress, sign } from '../../node/crypto/secp256k1.ts';
import {
  decodeMessage,
  encodeMessage,
  messageCode,
  signPayload,
  type CommitMessage,
  type PrepareMessage,
  type PreparePayload,
  type ProposalMessage,
  type QbftMessage,
  type RoundChangeMessage,
  type RoundChangePayload,
  type Signed,
} from '../../node/consensus/qbft/messages.ts';
import type { NodeProposedBlock } from '../../node/node.ts';
import { firstDifference, messageView } from './message-view.ts';

/** A height and round (Besu's ConsensusRoundIdentifier: sequence number and round number). */
export interface RoundId {
  height: number;
  round: number;
}

/** A round's prepared block with the prepares that prepared it (Besu's PreparedCertificate). */
export interface PreparedCertificate {
  block: NodeProposedBlock;
  prepares: Signed<PreparePayload>[];
  round: number;
}

/** What was sent to a peer, in order: the message code and its bytes as they left the node. */
export interface SentMessage {
  code: number;
  data: Uint8Array;
}

/** Delivers a message from a peer to the node and resolves once the node has handled it. */
export type Injector = (from: string, code: number, data: Uint8Array) => Promise<void>;

/** Besu's MessageFactory: messages signed with one key, not sent anywhere. */
export class MessageFactory {
  readonly address: Hex;

  constructor(readonly privateKey: Uint8Array) {
    this.address = privateKeyToAddress(privateKey);
  }

  createProposal(id: RoundId, block: NodeProposedBlock, roundChanges: Signed<RoundChangePayload>[] = [], prepares: Signed<PreparePayload>[] = []): ProposalMessage {
    const signed = signPayload({ kind: 'proposal', sequence: id.height, round: id.round, blockRlp: block.rlp }, this.privateKey);
    return { kind: 'proposal', signed, roundChanges, prepares };
  }

  createPrepare(id: RoundId, digest: Hex): PrepareMessage {
    return { kind: 'prepare', signed: signPayload({ kind: 'prepare', sequence: id.height, round: id.round, digest: hexToBytes(digest) }, this.privateKey) };
  }

  createCommit(id: RoundId, digest: Hex, commitSeal: Uint8Array): CommitMessage {
    const payload = { kind: 'commit' as const, sequence: id.height, round: id.round, digest: hexToBytes(digest), commitSeal };
    return { kind: 'commit', signed: signPayload(payload, this.privateKey) };
  }

  /** A commit for `block` in round `id.round`, its seal over the block with that round written in. */
  createCommitFor(id: RoundId, block: NodeProposedBlock): CommitMessage {
    return this.createCommit(id, block.digest, this.commitSeal(block, id.round));
  }

  createRoundChange(id: RoundId, prepared?: PreparedCertificate): RoundChangeMessage {
    const metadata = prepared ? { preparedRound: prepared.round, preparedBlockHash: hexToBytes(prepared.block.digest) } : undefined;
    const signed = signPayload({ kind: 'roundChange', sequence: id.height, round: id.round, prepared: metadata }, this.privateKey);
    return { kind: 'roundChange', signed, preparedBlockRlp: prepared?.block.rlp, prepares: prepared?.prepares ?? [] };
  }

  /** The commit seal this key makes for `block` committed in `round`. */
  commitSeal(block: NodeProposedBlock, round: number): Uint8Array {
    return this.sign(hexToBytes(block.digestForRound(round)));
  }

  /** A signature over any 32-byte hash (Besu's NodeKey.sign). */
  sign(hash: Uint8Array): Uint8Array {
    if (hash.length !== 32) throw new RangeError(`a hash to sign is 32 bytes, got ${hash.length}`);
    return sign(hash, this.privateKey);
  }
}

export class ValidatorPeer extends MessageFactory {
  private received: SentMessage[] = [];

  constructor(
    privateKey: Uint8Array,
    /** This peer's id on the node's transport. */
    readonly id: string,
    private readonly deliver: Injector,
  ) {
    super(privateKey);
  }

  /** Records a message the node sent to this peer (called by the harness transport). */
  record(message: SentMessage): void {
    this.received.push(message);
  }

  /** Sends raw bytes under any message code (malformed RLP, unknown codes) and waits for the node. */
  async injectMessage(code: number, data: Uint8Array): Promise<void> {
    await this.deliver(this.id, code, data);
  }

  async inject<M extends QbftMessage>(message: M): Promise<M> {
    await this.injectMessage(messageCode(message), encodeMessage(message));
    return message;
  }

  injectProposal(id: RoundId, block: NodeProposedBlock): Promise<ProposalMessage> {
    return this.inject(this.createProposal(id, block));
  }

  injectProposalForFutureRound(id: RoundId, roundChanges: Signed<RoundChangePayload>[], prepares: Signed<PreparePayload>[], block: NodeProposedBlock): Promise<ProposalMessage> {
    return this.inject(this.createProposal(id, block, roundChanges, prepares));
  }

  injectPrepare(id: RoundId, digest: Hex): Promise<PrepareMessage> {
    return this.inject(this.createPrepare(id, digest));
  }

  /** A commit with a valid seal for `block`, or with the given digest and seal. */
  injectCommit(id: RoundId, block: NodeProposedBlock): Promise<CommitMessage>;
  injectCommit(id: RoundId, digest: Hex, commitSeal: Uint8Array): Promise<CommitMessage>;
  injectCommit(id: RoundId, blockOrDigest: NodeProposedBlock | Hex, commitSeal?: Uint8Array): Promise<CommitMessage> {
    if (typeof blockOrDigest === 'string') return this.inject(this.createCommit(id, blockOrDigest, commitSeal!));
    return this.inject(this.createCommitFor(id, blockOrDigest));
  }

  injectRoundChange(id: RoundId, prepared?: PreparedCertificate): Promise<RoundChangeMessage> {
    return this.inject(this.createRoundChange(id, prepared));
  }

  /** What the node sent this peer since the last clear, decoded, in order. */
  receivedMessages(): QbftMessage[] {
    return this.received.map((m) => decodeMessage(m.code, m.data));
  }

  /** The same, as the bytes that left the node. */
  receivedRaw(): SentMessage[] {
    return [...this.received];
  }

  clearReceivedMessages(): void {
    this.received = [];
  }

  /** The chain height the node told sync this peer has (Besu's DefaultValidatorPeer.estimatedChainHeight). */
  estimatedChainHeight = 0;

  /** Records what the node told sync of this peer (called by the harness). */
  updateEstimatedChainHeight(height: number): void {
    this.estimatedChainHeight = height;
  }

  verifyEstimatedChainHeightEquals(expected: number): void {
    if (this.estimatedChainHeight !== expected) throw new MessageMismatch(`peer ${this.address}: estimated chain height ${this.estimatedChainHeight} != ${expected} expected`);
  }

  /**
   * Checks that the node sent this peer exactly `expected`, in order, field by field; throws an
   * error naming the first difference. Clears what was received (as Besu's verify helpers do).
   */
  verifyReceived(...expected: QbftMessage[]): void {
    const actual = this.receivedMessages();
    this.clearReceivedMessages();
    const kinds = (ms: QbftMessage[]) => ms.map((m) => `${m.kind}(${m.signed.payload.sequence},${m.signed.payload.round})`).join(', ') || 'nothing';
    if (actual.length !== expected.length) throw new MessageMismatch(`peer ${this.address} received ${kinds(actual)}; expected ${kinds(expected)}`);
    for (let i = 0; i < actual.length; i++) {
      const difference = firstDifference(messageView(actual[i]), messageView(expected[i]));
      if (difference) throw new MessageMismatch(`peer ${this.address}, message ${i} (${expected[i].kind}): ${difference}`);
    }
  }
}

/** What a node sent differs from what a test expected. */
export class MessageMismatch extends Error {
  override name = 'MessageMismatch';
}

/** A key for a peer that is no validator: the same for the same `seed`. */
export function outsiderKey(seed: string): Uint8Array {
  return keccak256(new TextEncoder().encode(`qbft-lab/outsider/${seed}`));
}

/**
 * The private transaction manager inside the node (the role Tessera played for Besu): it keeps
 * privacy groups and private transaction payloads, and hands payloads only to the members of their
 * group. Its peers are other nodes' managers, reached through `PtmNetwork` (the node carries the
 * messages on its peer-to-peer transport, so the simulator and live nodes share this code).
 *
 * Keys and ids are base64, as Besu shows them; the group of an EEA transaction (privateFrom +
 * privateFor) has Besu's id (privacy-group-id.ts).
 *
 * What arrives from other managers is checked, never trusted: a group's id must be the one its
 * members (and seed) give, a known group is never changed from the wire, and a payload is kept
 * only when its sender and this node are members of its group, it opens with this node's key, and
 * its key is the one its ciphertext gives.
 *
 * Payloads travel and rest encrypted as Tessera's did (ptm-crypto.ts): each member gets the
 * ciphertext and the master key boxed to its own key; this node keeps its own envelope (the
 * sender's included) and the plaintext in memory only. A payload's key is keccak256 of
 * RLP([cipherText, cipherNonce, keccak256(master key), sender key, group id]): it names the
 * ciphertext (the marker on the public chain reveals nothing guessable about the plaintext) and
 * commits to the master key. A created group's id is keccak256 of RLP([sorted members, seed]).
 *
 * What the manager keeps goes through `journal` (the node persists it: privacy-store.ts), and
 * `restore…` puts it back after a restart.
 *
 * Bounded: at most `maxPayloadBytes` of payloads (`maxPayloadBytesPerSender` from any one other
 * key) and `maxGroups` groups; the oldest received ones go first, and what this node created or
 * sent itself is never evicted.
 */
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../crypto/keccak.ts';
import { fromBase64, toBase64 } from './private-transaction.ts';
import { eeaPrivacyGroupId } from './privacy-group-id.ts';
import { boxKey, boxMasterKey, encryptPayload, masterKeyCommitment, NONCE_BYTES, openEnvelope, type Envelope, type PrivacyKeyPair, type RandomBytes } from './ptm-crypto.ts';

/** 'LEGACY': the group of an EEA transaction's privateFrom + privateFor; 'PANTHEON': made with priv_createPrivacyGroup. */
export type PrivacyGroupType = 'LEGACY' | 'PANTHEON';

export interface PrivacyGroup {
  privacyGroupId: string;
  type: PrivacyGroupType;
  name: string;
  description: string;
  /** LEGACY: privateFrom first, then privateFor, as the id is computed from them. */
  members: string[];
  /** PANTHEON: the seed the id was made from (base64), so members can check the id. */
  seed?: string;
}

export interface StoredPayload {
  key: string;
  /** The plaintext (in memory only). */
  payload: Uint8Array;
  senderKey: string;
  privacyGroupId: string;
  /** This node's envelope: what is persisted, and what opens to `payload` with this node's key. */
  envelope: Envelope;
}

export type PtmMessage =
  | { kind: 'payload'; key: string; senderKey: string; group: PrivacyGroup; envelope: Envelope }
  | { kind: 'group'; group: PrivacyGroup }
  | { kind: 'delete-group'; privacyGroupId: string };

/** How a manager reaches the manager of another privacy key (the node's transport). */
export interface PtmNetwork {
  send(toKey: string, message: PtmMessage): void;
  /** Whether the manager of `key` can be reached now. */
  reachable(key: string): boolean;
}

/** Besu's enclave error names (RpcErrorType -50200) for what the manager refuses. */
export type PtmErrorName =
  | 'CreatePrivacyGroupShouldIncludeSelf'
  | 'PrivacyGroupNotFound'
  | 'EnclavePayloadNotFound'
  | 'EnclaveDecodePublicKey'
  | 'PrivacyGroupNotDeleted'
  | 'NodeMissingPeerUrl';

export class PtmError extends Error {
  constructor(readonly enclaveError: PtmErrorName, detail?: string) {
    super(detail ? `${enclaveError}: ${detail}` : enclaveError);
    this.name = 'PtmError';
  }
}

/** Where the manager reports what it keeps and drops (the node's persistence). */
export interface PtmJournal {
  payloadKept(p: StoredPayload, pinned: boolean): void;
  payloadDropped(key: string): void;
  groupKept(g: PrivacyGroup, pinned: boolean): void;
  groupDropped(privacyGroupId: string): void;
}

export interface PtmOptions {
  entropy: RandomBytes;
  limits?: Partial<PtmLimits>;
  journal?: PtmJournal;
}

export interface PtmLimits {
  maxPayloadBytes: number;
  maxPayloadBytesPerSender: number;
  maxGroups: number;
  maxMembers: number;
  /** Box keys kept (one X25519 each to make again). */
  maxBoxKeys: number;
}

export const DEFAULT_PTM_LIMITS: PtmLimits = { maxPayloadBytes: 256 * 1024 * 1024, maxPayloadBytesPerSender: 32 * 1024 * 1024, maxGroups: 10_000, maxMembers: 256, maxBoxKeys: 4096 };

/** The id a group's members (and seed) give it; undefined when they cannot give one. */
export function expectedGroupId(group: Pick<PrivacyGroup, 'type' | 'members' | 'seed'>): string | undefined {
  const keys = group.members.map((m) => fromBase64(m));
  if (keys.length === 0 || keys.some((k) => k === undefined)) return undefined;
  if (group.type === 'LEGACY') return toBase64(eeaPrivacyGroupId(keys[0]!, keys.slice(1) as Uint8Array[]));
  const seed = group.seed === undefined ? undefined : fromBase64(group.seed);
  if (!seed) return undefined;
  const sorted = [...new Set(group.members)].sort().map((k) => fromBase64(k)!);
  return toBase64(keccak256(RLP.encode([sorted, seed])));
}

export class PrivateTransactionManager {
  readonly publicKey: string;
  private readonly payloads = new Map<string, StoredPayload>();
  private readonly groups = new Map<string, PrivacyGroup>();
  /** Groups and payloads this node made or sent: never evicted. */
  private readonly pinned = new Set<string>();
  private readonly bytesFrom = new Map<string, number>();
  private readonly boxKeys = new Map<string, Uint8Array | undefined>();
  private payloadBytes = 0;
  private readonly limits: PtmLimits;
  private readonly journal?: PtmJournal;
  private readonly entropy: RandomBytes;

  constructor(
    private readonly keys: PrivacyKeyPair,
    private readonly network: PtmNetwork,
    options: PtmOptions,
  ) {
    if (!fromBase64(keys.publicKey)) throw new PtmError('EnclaveDecodePublicKey', 'the privacy public key must be 32 bytes in base64');
    this.publicKey = keys.publicKey;
    this.limits = { ...DEFAULT_PTM_LIMITS, ...options.limits };
    this.journal = options.journal;
    this.entropy = options.entropy;
  }

  /** priv_createPrivacyGroup: a group of `members` (which must include this manager's key). */
  createGroup(members: readonly string[], name: string, description: string, seed: Uint8Array): PrivacyGroup {
    const keys = [...new Set(this.checkMembers(members))];
    if (!keys.includes(this.publicKey)) throw new PtmError('CreatePrivacyGroupShouldIncludeSelf');
    const partial = { type: 'PANTHEON' as const, members: keys, seed: toBase64(seed) };
    const group: PrivacyGroup = { ...partial, privacyGroupId: expectedGroupId(partial)!, name, description };
    this.keepGroup(group, true);
    for (const member of keys) if (member !== this.publicKey) this.network.send(member, { kind: 'group', group });
    return group;
  }

  /** priv_deletePrivacyGroup: forgets the group here and at its other members. */
  deleteGroup(privacyGroupId: string): string {
    const group = this.groups.get(privacyGroupId);
    if (!group || group.type !== 'PANTHEON') throw new PtmError('PrivacyGroupNotFound');
    this.dropGroup(privacyGroupId);
    for (const member of group.members) if (member !== this.publicKey) this.network.send(member, { kind: 'delete-group', privacyGroupId });
    return privacyGroupId;
  }

  /** priv_findPrivacyGroup: the created groups whose members are exactly `members`. */
  findGroups(members: readonly string[]): PrivacyGroup[] {
    const wanted = [...new Set(this.checkMembers(members))].sort().join(',');
    return [...this.groups.values()].filter((g) => g.type === 'PANTHEON' && [...new Set(g.members)].sort().join(',') === wanted);
  }

  group(privacyGroupId: string): PrivacyGroup | undefined {
    return this.groups.get(privacyGroupId);
  }

  /** The group of an EEA transaction: privateFrom and privateFor, with Besu's id (always from the keys given). */
  legacyGroup(privateFrom: string, privateFor: readonly string[]): PrivacyGroup {
    const members = [...new Set(this.checkMembers([privateFrom, ...privateFor]))];
    const partial = { type: 'LEGACY' as const, members };
    return { ...partial, privacyGroupId: expectedGroupId(partial)!, name: 'legacy', description: 'Privacy group created for legacy privacy' };
  }

  /**
   * Encrypts a payload from this manager's key to a group, keeps this node's envelope and pushes
   * each other member its own; all must be reachable (Tessera refused a send to an unreachable
   * recipient). Returns the payload's key (what the privacy marker transaction carries).
   */
  send(payload: Uint8Array, group: PrivacyGroup): string {
    if (!group.members.includes(this.publicKey)) throw new PtmError('PrivacyGroupNotFound', 'this node is not a member of the group');
    const recipients = this.recipientsOf(group);
    const unreachable = recipients.filter((m) => !this.network.reachable(m));
    if (unreachable.length > 0) throw new PtmError('NodeMissingPeerUrl', `no connected manager for ${unreachable.join(', ')}`);
    const unusable = [this.publicKey, ...recipients].filter((m) => !this.boxKeyWith(m));
    if (unusable.length > 0) throw new PtmError('EnclaveDecodePublicKey', `${unusable.join(', ')}: not a usable X25519 key`);
    const { cipherText, cipherNonce, masterKey } = encryptPayload(payload, this.entropy);
    const recipientNonce = this.entropy(NONCE_BYTES);
    const envelopeFor = (member: string): Envelope => ({ cipherText, cipherNonce, recipientNonce, box: boxMasterKey(masterKey, this.boxKeyWith(member)!, recipientNonce) });
    const key = payloadKey(cipherText, cipherNonce, masterKeyCommitment(masterKey), this.publicKey, group.privacyGroupId);
    this.keepPayload({ key, payload, senderKey: this.publicKey, privacyGroupId: group.privacyGroupId, envelope: envelopeFor(this.publicKey) }, true);
    this.keepGroup(group, true);
    for (const member of recipients) this.network.send(member, { kind: 'payload', key, senderKey: this.publicKey, group, envelope: envelopeFor(member) });
    return key;
  }

  /** The payload stored under `key`, when this manager was sent it. */
  receive(key: string): StoredPayload | undefined {
    return this.payloads.get(key);
  }

  /**
   * A message from the manager of `fromKey` (as the transport vouches for it). Returns why it was
   * refused, if it was.
   */
  onMessage(fromKey: string, message: PtmMessage): string | undefined {
    switch (message.kind) {
      case 'payload':
        return this.onPayload(fromKey, message);
      case 'group':
        return this.acceptGroup(fromKey, message.group) ? undefined : `group ${message.group.privacyGroupId} refused (its id, its members or an existing group of that id)`;
      case 'delete-group': {
        const group = this.groups.get(message.privacyGroupId);
        if (!group || group.type !== 'PANTHEON' || !group.members.includes(fromKey)) return `delete of group ${message.privacyGroupId} refused (unknown, or ${fromKey} is not a member)`;
        this.dropGroup(message.privacyGroupId);
        return undefined;
      }
    }
  }

  /** A payload and its group back from the node's store (restart): undefined when it no longer opens. */
  restorePayload(key: string, senderKey: string, privacyGroupId: string, envelope: Envelope, pinned: boolean): StoredPayload | undefined {
    const payload = this.open(key, senderKey, privacyGroupId, envelope);
    if (!payload) return undefined;
    const stored = { key, payload, senderKey, privacyGroupId, envelope };
    this.keepPayload(stored, pinned, false);
    return stored;
  }

  restoreGroup(group: PrivacyGroup, pinned: boolean): void {
    if (expectedGroupId(group) === group.privacyGroupId && group.members.includes(this.publicKey)) this.keepGroup(group, pinned, false);
  }

  /** The members a payload is boxed for, besides this node. */
  private recipientsOf(group: PrivacyGroup): string[] {
    return group.members.filter((m) => m !== this.publicKey);
  }

  private onPayload(fromKey: string, m: Extract<PtmMessage, { kind: 'payload' }>): string | undefined {
    if (m.senderKey !== fromKey) return `payload ${m.key} names sender ${m.senderKey}, not ${fromKey} that sent it`;
    const group = this.acceptGroup(fromKey, m.group);
    if (!group) return `payload ${m.key} for group ${m.group.privacyGroupId}, which this node does not take from ${fromKey}`;
    const payload = this.open(m.key, fromKey, group.privacyGroupId, m.envelope);
    if (!payload) return `payload ${m.key} does not open with this node's key, or its key is not its ciphertext's (changed, or not for this node)`;
    this.keepPayload({ key: m.key, payload, senderKey: fromKey, privacyGroupId: group.privacyGroupId, envelope: m.envelope }, false);
    return undefined;
  }

  /** The plaintext when the envelope opens with this node's key and `key` is its ciphertext's. */
  private open(key: string, senderKey: string, privacyGroupId: string, envelope: Envelope): Uint8Array | undefined {
    const shared = this.boxKeyWith(senderKey);
    const opened = shared && openEnvelope(envelope, shared);
    if (!opened) return undefined;
    const expected = payloadKey(envelope.cipherText, envelope.cipherNonce, masterKeyCommitment(opened.masterKey), senderKey, privacyGroupId);
    return expected === key ? opened.payload : undefined;
  }

  /** The box key of this node's key and `other` (cached: each costs an X25519). */
  private boxKeyWith(other: string): Uint8Array | undefined {
    if (this.boxKeys.has(other)) return this.boxKeys.get(other);
    const raw = fromBase64(other);
    const shared = raw && boxKey(this.keys.privateKey, raw);
    if (this.boxKeys.size >= this.limits.maxBoxKeys) this.boxKeys.delete(this.boxKeys.keys().next().value as string);
    this.boxKeys.set(other, shared);
    return shared;
  }

  /**
   * The group a message names, when it is one this node may hold: the id checks out against its
   * members (and seed), the sender and this node are members, and a group already known is taken
   * as known here (never replaced from the wire).
   */
  private acceptGroup(fromKey: string, group: PrivacyGroup): PrivacyGroup | undefined {
    const known = this.groups.get(group.privacyGroupId);
    if (known) return known.members.includes(fromKey) && known.members.includes(this.publicKey) ? known : undefined;
    if (group.members.length > this.limits.maxMembers || expectedGroupId(group) !== group.privacyGroupId) return undefined;
    if (!group.members.includes(fromKey) || !group.members.includes(this.publicKey)) return undefined;
    this.keepGroup(group, false);
    return group;
  }

  private checkMembers(members: readonly string[]): string[] {
    if (members.length === 0 || members.length > this.limits.maxMembers) throw new PtmError('EnclaveDecodePublicKey', `a group has 1 to ${this.limits.maxMembers} members`);
    for (const m of members) if (!fromBase64(m)) throw new PtmError('EnclaveDecodePublicKey', `${String(m).slice(0, 60)} is not a 32-byte base64 key`);
    return [...members];
  }

  private keepGroup(group: PrivacyGroup, pin: boolean, journal = true): void {
    const known = this.groups.has(group.privacyGroupId);
    const newlyPinned = pin && !this.pinned.has(group.privacyGroupId);
    if (pin) this.pinned.add(group.privacyGroupId);
    if (known && !newlyPinned) return;
    if (!known && this.groups.size >= this.limits.maxGroups) {
      const victim = [...this.groups.keys()].find((id) => !this.pinned.has(id));
      if (victim === undefined) return;
      this.dropGroup(victim);
    }
    const kept = this.groups.get(group.privacyGroupId) ?? group;
    this.groups.set(group.privacyGroupId, kept);
    if (journal) this.journal?.groupKept(kept, this.pinned.has(group.privacyGroupId));
  }

  private dropGroup(privacyGroupId: string): void {
    this.groups.delete(privacyGroupId);
    this.pinned.delete(privacyGroupId);
    this.journal?.groupDropped(privacyGroupId);
  }

  private keepPayload(p: StoredPayload, pin: boolean, journal = true): void {
    if (this.payloads.has(p.key)) return;
    const size = p.payload.length;
    if (!pin) {
      const from = this.bytesFrom.get(p.senderKey) ?? 0;
      if (from + size > this.limits.maxPayloadBytesPerSender) return;
      this.bytesFrom.set(p.senderKey, from + size);
    } else this.pinned.add(p.key);
    while (this.payloadBytes + size > this.limits.maxPayloadBytes) {
      const victim = [...this.payloads.values()].find((x) => !this.pinned.has(x.key));
      if (!victim) return;
      this.dropPayload(victim);
    }
    this.payloads.set(p.key, p);
    this.payloadBytes += size;
    if (journal) this.journal?.payloadKept(p, pin);
  }

  private dropPayload(p: StoredPayload): void {
    this.payloads.delete(p.key);
    this.payloadBytes -= p.payload.length;
    const from = this.bytesFrom.get(p.senderKey);
    if (from !== undefined) this.bytesFrom.set(p.senderKey, from - p.payload.length);
    this.journal?.payloadDropped(p.key);
  }
}

/** keccak256 of RLP([cipherText, cipherNonce, keccak256(master key), sender key, group id]), base64. */
export function payloadKey(cipherText: Uint8Array, cipherNonce: Uint8Array, masterKeyHash: Uint8Array, senderKey: string, privacyGroupId: string): string {
  return toBase64(keccak256(RLP.encode([cipherText, cipherNonce, masterKeyHash, fromBase64(senderKey) ?? new Uint8Array(0), fromBase64(privacyGroupId) ?? new Uint8Array(0)])));
}

/**
 * The private transaction manager inside the node (the role Tessera played for Besu): it keeps
 * privacy groups and private transaction payloads, and hands payloads only to the members of their
 * group. Its peers are other nodes' managers, reached through `PtmNetwork` (the node carries the
 * messages on its peer-to-peer transport, so the simulator and live nodes share this code).
 *
 * Keys and ids are base64, as Besu shows them. A payload's key is keccak256 of RLP([payload,
 * sender key, group id]); a created group's id is keccak256 of RLP([sorted members, seed]); the
 * group of an EEA transaction (privateFrom + privateFor) has Besu's id (privacy-group-id.ts).
 *
 * What arrives from other managers is checked, never trusted: a group's id must be the one its
 * members (and seed) give, a known group is never changed from the wire, and a payload is kept
 * only when its sender and this node are members of its group. Payloads are not encrypted: the
 * lab's manager sends them to members only, and says so.
 *
 * Bounded: at most `maxPayloadBytes` of payloads (`maxPayloadBytesPerSender` from any one other
 * key) and `maxGroups` groups; the oldest received ones go first, and what this node created or
 * sent itself is never evicted.
 */
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../crypto/keccak.ts';
import { fromBase64, toBase64 } from './private-transaction.ts';
import { eeaPrivacyGroupId } from './privacy-group-id.ts';

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
  payload: Uint8Array;
  senderKey: string;
  privacyGroupId: string;
}

export type PtmMessage =
  | { kind: 'payload'; key: string; payload: Uint8Array; senderKey: string; group: PrivacyGroup }
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

export interface PtmLimits {
  maxPayloadBytes: number;
  maxPayloadBytesPerSender: number;
  maxGroups: number;
  maxMembers: number;
}

export const DEFAULT_PTM_LIMITS: PtmLimits = { maxPayloadBytes: 256 * 1024 * 1024, maxPayloadBytesPerSender: 32 * 1024 * 1024, maxGroups: 10_000, maxMembers: 256 };

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
  private readonly payloads = new Map<string, StoredPayload>();
  private readonly groups = new Map<string, PrivacyGroup>();
  /** Groups and payloads this node made or sent: never evicted. */
  private readonly pinned = new Set<string>();
  private readonly bytesFrom = new Map<string, number>();
  private payloadBytes = 0;
  private readonly limits: PtmLimits;

  constructor(
    readonly publicKey: string,
    private readonly network: PtmNetwork,
    limits: Partial<PtmLimits> = {},
  ) {
    if (!fromBase64(publicKey)) throw new PtmError('EnclaveDecodePublicKey', 'the privacy public key must be 32 bytes in base64');
    this.limits = { ...DEFAULT_PTM_LIMITS, ...limits };
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
    this.groups.delete(privacyGroupId);
    this.pinned.delete(privacyGroupId);
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
   * Stores a payload sent from this manager's key to a group and pushes it to the group's other
   * members, who must all be reachable (Tessera refused a send to an unreachable recipient).
   * Returns the payload's key (what the privacy marker transaction carries).
   */
  send(payload: Uint8Array, group: PrivacyGroup): string {
    if (!group.members.includes(this.publicKey)) throw new PtmError('PrivacyGroupNotFound', 'this node is not a member of the group');
    const unreachable = group.members.filter((m) => m !== this.publicKey && !this.network.reachable(m));
    if (unreachable.length > 0) throw new PtmError('NodeMissingPeerUrl', `no connected manager for ${unreachable.join(', ')}`);
    const key = payloadKey(payload, this.publicKey, group.privacyGroupId);
    this.keepPayload({ key, payload, senderKey: this.publicKey, privacyGroupId: group.privacyGroupId }, true);
    if (!this.groups.has(group.privacyGroupId)) this.keepGroup(group, true);
    else this.pinned.add(group.privacyGroupId);
    for (const member of group.members) if (member !== this.publicKey) this.network.send(member, { kind: 'payload', key, payload, senderKey: this.publicKey, group });
    return key;
  }

  /** The payload stored under `key`, when this manager was sent it. */
  receive(key: string): StoredPayload | undefined {
    return this.payloads.get(key);
  }

  /** A message from the manager of `fromKey` (as the transport vouches for it). */
  onMessage(fromKey: string, message: PtmMessage): void {
    switch (message.kind) {
      case 'payload': {
        if (message.senderKey !== fromKey || payloadKey(message.payload, message.senderKey, message.group.privacyGroupId) !== message.key) return;
        const group = this.acceptGroup(fromKey, message.group);
        if (!group) return;
        this.keepPayload({ key: message.key, payload: message.payload, senderKey: fromKey, privacyGroupId: group.privacyGroupId }, false);
        return;
      }
      case 'group':
        this.acceptGroup(fromKey, message.group);
        return;
      case 'delete-group': {
        const group = this.groups.get(message.privacyGroupId);
        if (group && group.type === 'PANTHEON' && group.members.includes(fromKey)) {
          this.groups.delete(message.privacyGroupId);
          this.pinned.delete(message.privacyGroupId);
        }
        return;
      }
    }
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

  private keepGroup(group: PrivacyGroup, pin: boolean): void {
    if (pin) this.pinned.add(group.privacyGroupId);
    if (!this.groups.has(group.privacyGroupId) && this.groups.size >= this.limits.maxGroups) {
      const victim = [...this.groups.keys()].find((id) => !this.pinned.has(id));
      if (victim === undefined) return;
      this.groups.delete(victim);
    }
    this.groups.set(group.privacyGroupId, group);
  }

  private keepPayload(p: StoredPayload, pin: boolean): void {
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
  }

  private dropPayload(p: StoredPayload): void {
    this.payloads.delete(p.key);
    this.payloadBytes -= p.payload.length;
    const from = this.bytesFrom.get(p.senderKey);
    if (from !== undefined) this.bytesFrom.set(p.senderKey, from - p.payload.length);
  }
}

export function payloadKey(payload: Uint8Array, senderKey: string, privacyGroupId: string): string {
  return toBase64(keccak256(RLP.encode([payload, fromBase64(senderKey) ?? new Uint8Array(0), fromBase64(privacyGroupId) ?? new Uint8Array(0)])));
}

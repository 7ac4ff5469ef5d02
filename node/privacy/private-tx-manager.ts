/**
 * The private transaction manager inside the node (the role Tessera played for Besu): it keeps
 * privacy groups and private transaction payloads, and hands payloads only to the members of their
 * group. Its peers are other nodes' managers, reached through `PtmNetwork` (the node carries the
 * messages on its peer-to-peer transport, so the simulator and live nodes share this code).
 *
 * Keys and ids are base64, as Besu shows them. A payload's key is keccak256 of RLP([payload,
 * sender key, group id]); a created group's id is keccak256 of RLP([sorted members, seed]); the
 * group of an EEA transaction (privateFrom + privateFor) has Besu's id (privacy-group-id.ts).
 * Payloads are not encrypted: the lab's manager sends them to members only, and says so.
 * Bounded: at most `maxPayloads` payloads and `maxGroups` groups (oldest dropped first).
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
  members: string[];
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
}

/** Besu's enclave error names (RpcErrorType -50200) for what the manager refuses. */
export type PtmErrorName =
  | 'CreatePrivacyGroupShouldIncludeSelf'
  | 'PrivacyGroupNotFound'
  | 'EnclavePayloadNotFound'
  | 'EnclaveDecodePublicKey'
  | 'PrivacyGroupNotDeleted';

export class PtmError extends Error {
  constructor(readonly enclaveError: PtmErrorName, detail?: string) {
    super(detail ? `${enclaveError}: ${detail}` : enclaveError);
    this.name = 'PtmError';
  }
}

export interface PtmLimits {
  maxPayloads: number;
  maxGroups: number;
  maxMembers: number;
}

export const DEFAULT_PTM_LIMITS: PtmLimits = { maxPayloads: 100_000, maxGroups: 10_000, maxMembers: 256 };

export class PrivateTransactionManager {
  private readonly payloads = new Map<string, StoredPayload>();
  private readonly groups = new Map<string, PrivacyGroup>();
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
    const keys = this.checkMembers(members);
    if (!keys.includes(this.publicKey)) throw new PtmError('CreatePrivacyGroupShouldIncludeSelf');
    const sorted = [...keys].sort();
    const privacyGroupId = toBase64(keccak256(RLP.encode([sorted.map((k) => fromBase64(k)!), seed])));
    const group: PrivacyGroup = { privacyGroupId, type: 'PANTHEON', name, description, members: keys };
    this.keepGroup(group);
    for (const member of keys) if (member !== this.publicKey) this.network.send(member, { kind: 'group', group });
    return group;
  }

  /** priv_deletePrivacyGroup: forgets the group here and at its other members. */
  deleteGroup(privacyGroupId: string): string {
    const group = this.groups.get(privacyGroupId);
    if (!group || group.type !== 'PANTHEON') throw new PtmError('PrivacyGroupNotFound');
    this.groups.delete(privacyGroupId);
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

  /** The group of an EEA transaction: privateFrom and privateFor, with Besu's id. */
  legacyGroup(privateFrom: string, privateFor: readonly string[]): PrivacyGroup {
    const keys = this.checkMembers([privateFrom, ...privateFor]);
    const privacyGroupId = toBase64(eeaPrivacyGroupId(fromBase64(privateFrom)!, privateFor.map((k) => fromBase64(k)!)));
    return this.groups.get(privacyGroupId) ?? { privacyGroupId, type: 'LEGACY', name: 'legacy', description: 'Privacy group created for legacy privacy', members: [...new Set(keys)] };
  }

  /**
   * Stores a payload sent from this manager's key to a group and pushes it to the group's other
   * members. Returns the payload's key (what the privacy marker transaction carries).
   */
  send(payload: Uint8Array, group: PrivacyGroup): string {
    if (!group.members.includes(this.publicKey)) throw new PtmError('PrivacyGroupNotFound', 'this node is not a member of the group');
    const key = payloadKey(payload, this.publicKey, group.privacyGroupId);
    this.keepPayload({ key, payload, senderKey: this.publicKey, privacyGroupId: group.privacyGroupId });
    if (group.type === 'LEGACY') this.keepGroup(group);
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
        const { group } = message;
        // Keep only what was meant for this manager, from a member that sent it itself.
        if (message.senderKey !== fromKey || !group.members.includes(fromKey) || !group.members.includes(this.publicKey)) return;
        if (payloadKey(message.payload, message.senderKey, group.privacyGroupId) !== message.key) return;
        if (group.type === 'LEGACY' && !this.groups.has(group.privacyGroupId)) this.keepGroup(group);
        this.keepPayload({ key: message.key, payload: message.payload, senderKey: message.senderKey, privacyGroupId: group.privacyGroupId });
        return;
      }
      case 'group':
        if (message.group.members.includes(fromKey) && message.group.members.includes(this.publicKey)) this.keepGroup(message.group);
        return;
      case 'delete-group': {
        const group = this.groups.get(message.privacyGroupId);
        if (group && group.members.includes(fromKey)) this.groups.delete(message.privacyGroupId);
        return;
      }
    }
  }

  private checkMembers(members: readonly string[]): string[] {
    if (members.length === 0 || members.length > this.limits.maxMembers) throw new PtmError('EnclaveDecodePublicKey', `a group has 1 to ${this.limits.maxMembers} members`);
    for (const m of members) if (!fromBase64(m)) throw new PtmError('EnclaveDecodePublicKey', `${String(m).slice(0, 60)} is not a 32-byte base64 key`);
    return [...members];
  }

  private keepGroup(group: PrivacyGroup): void {
    if (!this.groups.has(group.privacyGroupId) && this.groups.size >= this.limits.maxGroups) this.groups.delete(this.groups.keys().next().value as string);
    this.groups.set(group.privacyGroupId, group);
  }

  private keepPayload(p: StoredPayload): void {
    if (!this.payloads.has(p.key) && this.payloads.size >= this.limits.maxPayloads) this.payloads.delete(this.payloads.keys().next().value as string);
    this.payloads.set(p.key, p);
  }
}

export function payloadKey(payload: Uint8Array, senderKey: string, privacyGroupId: string): string {
  return toBase64(keccak256(RLP.encode([payload, fromBase64(senderKey) ?? new Uint8Array(0), fromBase64(privacyGroupId) ?? new Uint8Array(0)])));
}

/**
 * The messages private transaction managers exchange over the node's peer-to-peer transport
 * (qbft-lab's own sub-protocol `ptm`; Besu's managers talked over Tessera's HTTP instead):
 *   0x00 Announce [privacyKey]            a node's privacy key, sent to each peer on connection
 *   0x01 Payload  [key, payload, sender, group]
 *   0x02 Group    [group]
 *   0x03 Delete   [privacyGroupId]
 * group = [id, type, name, description, [member, ...], seed]; keys, ids and the seed (empty for
 * LEGACY groups) are their 32 bytes.
 * Decoding refuses anything out of shape or over the bounds (a hostile peer's message is dropped).
 */
import { RLP } from '@ethereumjs/rlp';
import { fromBase64, toBase64 } from './private-transaction.ts';
import type { PrivacyGroup, PtmMessage } from './private-tx-manager.ts';

export const PTM_CODE = { announce: 0, payload: 1, group: 2, delete: 3 } as const;
export const MAX_PTM_PAYLOAD_BYTES = 1 << 20;
const MAX_MEMBERS = 256;
const MAX_TEXT_BYTES = 1024;

export type PtmWireMessage = { kind: 'announce'; publicKey: string } | PtmMessage;

const utf8 = new TextEncoder();
const key32 = (k: string): Uint8Array => fromBase64(k) ?? new Uint8Array(0);

function encodeGroup(g: PrivacyGroup): unknown[] {
  return [key32(g.privacyGroupId), utf8.encode(g.type), utf8.encode(g.name), utf8.encode(g.description), g.members.map(key32), g.seed === undefined ? new Uint8Array(0) : key32(g.seed)];
}

export function encodePtmMessage(m: PtmWireMessage): { code: number; data: Uint8Array } {
  switch (m.kind) {
    case 'announce':
      return { code: PTM_CODE.announce, data: RLP.encode([key32(m.publicKey)]) };
    case 'payload':
      return { code: PTM_CODE.payload, data: RLP.encode([key32(m.key), m.payload, key32(m.senderKey), encodeGroup(m.group)] as never) };
    case 'group':
      return { code: PTM_CODE.group, data: RLP.encode([encodeGroup(m.group)] as never) };
    case 'delete-group':
      return { code: PTM_CODE.delete, data: RLP.encode([key32(m.privacyGroupId)]) };
  }
}

class Shape extends Error {}

const bytes = (x: unknown, max = 32): Uint8Array => {
  if (!(x instanceof Uint8Array) || x.length > max) throw new Shape();
  return x;
};
const key = (x: unknown): string => {
  const b = bytes(x);
  if (b.length !== 32) throw new Shape();
  return toBase64(b);
};
const text = (x: unknown): string => new TextDecoder('utf-8', { fatal: true }).decode(bytes(x, MAX_TEXT_BYTES));
const list = (x: unknown, max: number): unknown[] => {
  if (!Array.isArray(x) || x.length > max) throw new Shape();
  return x;
};

function decodeGroup(x: unknown): PrivacyGroup {
  const items = list(x, 6);
  if (items.length !== 6) throw new Shape();
  const [id, type, name, description, members, seed] = items;
  const t = text(type);
  if (t !== 'LEGACY' && t !== 'PANTHEON') throw new Shape();
  const m = list(members, MAX_MEMBERS).map(key);
  if (m.length === 0) throw new Shape();
  const group: PrivacyGroup = { privacyGroupId: key(id), type: t, name: text(name), description: text(description), members: m };
  if (t === 'PANTHEON') group.seed = key(seed);
  else if (bytes(seed).length !== 0) throw new Shape();
  return group;
}

/** The message, or undefined when it is not one (wrong code, shape or size). */
export function decodePtmMessage(code: number, data: Uint8Array): PtmWireMessage | undefined {
  if (data.length > MAX_PTM_PAYLOAD_BYTES + 64 * 1024) return undefined;
  try {
    const items = list(RLP.decode(data), 4);
    switch (code) {
      case PTM_CODE.announce:
        return items.length === 1 ? { kind: 'announce', publicKey: key(items[0]) } : undefined;
      case PTM_CODE.payload:
        if (items.length !== 4) return undefined;
        return { kind: 'payload', key: key(items[0]), payload: bytes(items[1], MAX_PTM_PAYLOAD_BYTES), senderKey: key(items[2]), group: decodeGroup(items[3]) };
      case PTM_CODE.group:
        return items.length === 1 ? { kind: 'group', group: decodeGroup(items[0]) } : undefined;
      case PTM_CODE.delete:
        return items.length === 1 ? { kind: 'delete-group', privacyGroupId: key(items[0]) } : undefined;
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}

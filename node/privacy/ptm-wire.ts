/**
 * The messages private transaction managers exchange over the node's peer-to-peer transport
 * (qbft-lab's own sub-protocol `ptm/2`; Besu's managers talked over Tessera's HTTP instead):
 *   0x00 Hello   [privacyKey, challenge]   the key a node claims and a fresh challenge, on connection
 *   0x01 Payload [key, sender, group, cipherText, cipherNonce, recipientNonce, box]
 *   0x02 Group   [group]
 *   0x03 Delete  [privacyGroupId]
 *   0x04 Proof   [mac]                     proof of the claimed key over the peer's challenge (ptm-crypto.ts)
 * group = [id, type, name, description, [member, ...], seed]; keys, ids and the seed (empty for
 * LEGACY groups) are their 32 bytes. A payload travels encrypted: `box` is the master key boxed to
 * the one recipient the message goes to.
 * Decoding refuses anything out of shape or over the bounds (a hostile peer's message is dropped).
 */
import { RLP } from '@ethereumjs/rlp';
import { fromBase64, toBase64 } from './private-transaction.ts';
import type { PrivacyGroup, PtmMessage } from './private-tx-manager.ts';
import { BOX_BYTES, CHALLENGE_BYTES, NONCE_BYTES, PROOF_BYTES, TAG_BYTES } from './ptm-crypto.ts';

export const PTM_CODE = { hello: 0, payload: 1, group: 2, delete: 3, proof: 4 } as const;
export const MAX_PTM_PAYLOAD_BYTES = 1 << 20;
const MAX_MEMBERS = 256;
const MAX_TEXT_BYTES = 1024;
/** Room for a group of MAX_MEMBERS with full texts, the fixed fields and RLP's headers. */
const MAX_MESSAGE_BYTES = MAX_PTM_PAYLOAD_BYTES + TAG_BYTES + 64 * 1024;

export type PtmWireMessage = { kind: 'hello'; publicKey: string; challenge: Uint8Array } | { kind: 'proof'; mac: Uint8Array } | PtmMessage;

const utf8 = new TextEncoder();
const key32 = (k: string): Uint8Array => fromBase64(k) ?? new Uint8Array(0);

export function encodeGroup(g: PrivacyGroup): unknown[] {
  return [key32(g.privacyGroupId), utf8.encode(g.type), utf8.encode(g.name), utf8.encode(g.description), g.members.map(key32), g.seed === undefined ? new Uint8Array(0) : key32(g.seed)];
}

export function encodePtmMessage(m: PtmWireMessage): { code: number; data: Uint8Array } {
  switch (m.kind) {
    case 'hello':
      return { code: PTM_CODE.hello, data: RLP.encode([key32(m.publicKey), m.challenge]) };
    case 'proof':
      return { code: PTM_CODE.proof, data: RLP.encode([m.mac]) };
    case 'payload': {
      const e = m.envelope;
      return { code: PTM_CODE.payload, data: RLP.encode([key32(m.key), key32(m.senderKey), encodeGroup(m.group), e.cipherText, e.cipherNonce, e.recipientNonce, e.box] as never) };
    }
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
const exactly = (x: unknown, size: number): Uint8Array => {
  const b = bytes(x, size);
  if (b.length !== size) throw new Shape();
  return b;
};
const key = (x: unknown): string => toBase64(exactly(x, 32));
const text = (x: unknown): string => new TextDecoder('utf-8', { fatal: true }).decode(bytes(x, MAX_TEXT_BYTES));
const list = (x: unknown, max: number): unknown[] => {
  if (!Array.isArray(x) || x.length > max) throw new Shape();
  return x;
};

export function decodeGroup(x: unknown): PrivacyGroup {
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

function decodePayload(items: unknown[]): PtmWireMessage | undefined {
  if (items.length !== 7) return undefined;
  const [k, sender, group, cipherText, cipherNonce, recipientNonce, box] = items;
  return {
    kind: 'payload',
    key: key(k),
    senderKey: key(sender),
    group: decodeGroup(group),
    envelope: {
      cipherText: bytes(cipherText, MAX_PTM_PAYLOAD_BYTES + TAG_BYTES),
      cipherNonce: exactly(cipherNonce, NONCE_BYTES),
      recipientNonce: exactly(recipientNonce, NONCE_BYTES),
      box: exactly(box, BOX_BYTES),
    },
  };
}

/** The message, or undefined when it is not one (wrong code, shape or size). */
export function decodePtmMessage(code: number, data: Uint8Array): PtmWireMessage | undefined {
  if (data.length > MAX_MESSAGE_BYTES) return undefined;
  try {
    const items = list(RLP.decode(data), 7);
    switch (code) {
      case PTM_CODE.hello:
        return items.length === 2 ? { kind: 'hello', publicKey: key(items[0]), challenge: exactly(items[1], CHALLENGE_BYTES) } : undefined;
      case PTM_CODE.proof:
        return items.length === 1 ? { kind: 'proof', mac: exactly(items[0], PROOF_BYTES) } : undefined;
      case PTM_CODE.payload:
        return decodePayload(items);
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

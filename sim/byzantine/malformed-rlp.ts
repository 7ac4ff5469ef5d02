/**
 * Malformed messages under valid QBFT codes. Before each of its own messages the node sends
 * MALFORMED_PER_SEND broken variants of it, in turn:
 * - truncated: the first half of the bytes;
 * - garbage: pseudo-random bytes of the same length (keccak of the message, repeated);
 * - overlong-length: the outer list's length prefix claims more bytes than there are;
 * - trailing-bytes: a valid message followed by one more byte;
 * - wrapped: the message as the only item of another list;
 * - string-not-list: the message encoded as one RLP byte string;
 * - empty: no bytes at all;
 * - signed-extra-item: a validly signed payload with one item too many;
 * - signed-leading-zero: a validly signed payload whose height has a leading zero byte;
 * - signed-oversized-round: a validly signed payload whose round does not fit in 4 bytes;
 * - list-for-digest: a validly signed PREPARE-shaped payload with a list where the digest goes;
 * - other-code: the message's bytes under another message code.
 * The genuine message follows.
 */
import { RLP } from '@ethereumjs/rlp';
import { concatBytes, intToBytes } from '../../node/crypto/bytes.ts';
import { keccak256 } from '../../node/crypto/keccak.ts';
import { MessageCode } from '../../node/consensus/qbft/messages.ts';
import { encodeRawList, EMPTY_LIST, listItems } from '../../node/consensus/qbft/messages/rlp-raw.ts';
import { istanbul, rlpScalar, signRaw, type Behaviour, type ByzantineKit, type Outgoing } from './kit.ts';
import type { WireMessage } from '../../node/runtime/ports.ts';

export const MALFORMED_VARIANTS = [
  'truncated', 'garbage', 'overlong-length', 'trailing-bytes', 'wrapped', 'string-not-list', 'empty',
  'signed-extra-item', 'signed-leading-zero', 'signed-oversized-round', 'list-for-digest', 'other-code',
] as const;
export type MalformedVariant = (typeof MALFORMED_VARIANTS)[number];
export const MALFORMED_PER_SEND = 2;

function overlong(data: Uint8Array): Uint8Array {
  // A long-list prefix (0xf9: two length bytes) claiming 0xffff bytes, with the original payload.
  return concatBytes(Uint8Array.of(0xf9, 0xff, 0xff), listItems(data).reduce((acc, item) => concatBytes(acc, item), new Uint8Array(0)));
}

/** Broken bytes for one variant; the code is the message's own except for 'other-code'. */
export function malformed(kit: ByzantineKit, out: Pick<Outgoing, 'code' | 'data' | 'roundId'>, variant: MalformedVariant): WireMessage {
  const { code, data } = out;
  const seq = out.roundId?.sequence ?? 1;
  const round = out.roundId?.round ?? 0;
  const digest = keccak256(data);
  switch (variant) {
    case 'truncated':
      return istanbul(code, data.subarray(0, Math.floor(data.length / 2)));
    case 'garbage': {
      const bytes = new Uint8Array(data.length);
      for (let i = 0; i < bytes.length; i++) bytes[i] = digest[i % 32] ^ (i >> 5);
      return istanbul(code, bytes);
    }
    case 'overlong-length':
      return istanbul(code, overlong(data));
    case 'trailing-bytes':
      return istanbul(code, concatBytes(data, Uint8Array.of(0x00)));
    case 'wrapped':
      return istanbul(code, encodeRawList([data]));
    case 'string-not-list':
      return istanbul(code, RLP.encode(data));
    case 'empty':
      return istanbul(code, new Uint8Array(0));
    case 'signed-extra-item':
      return istanbul(MessageCode.PREPARE, signRaw(MessageCode.PREPARE, [rlpScalar(seq), rlpScalar(round), RLP.encode(digest), RLP.encode(digest)], kit.privateKey));
    case 'signed-leading-zero':
      return istanbul(MessageCode.PREPARE, signRaw(MessageCode.PREPARE, [RLP.encode(concatBytes(Uint8Array.of(0), intToBytes(seq))), rlpScalar(round), RLP.encode(digest)], kit.privateKey));
    case 'signed-oversized-round':
      return istanbul(MessageCode.PREPARE, signRaw(MessageCode.PREPARE, [rlpScalar(seq), RLP.encode(Uint8Array.of(1, 0, 0, 0, 0)), RLP.encode(digest)], kit.privateKey));
    case 'list-for-digest':
      return istanbul(MessageCode.PREPARE, signRaw(MessageCode.PREPARE, [rlpScalar(seq), rlpScalar(round), EMPTY_LIST], kit.privateKey));
    case 'other-code':
      return istanbul(code === MessageCode.COMMIT ? MessageCode.PREPARE : MessageCode.COMMIT, data);
  }
}

export const malformedRlp: Behaviour = {
  plan(kit, out) {
    if (!out.own) return [istanbul(out.code, out.data)];
    const sent: WireMessage[] = [];
    for (let i = 0; i < MALFORMED_PER_SEND; i++) {
      const variant = MALFORMED_VARIANTS[kit.turn('malformed-rlp') % MALFORMED_VARIANTS.length];
      sent.push(malformed(kit, out, variant));
      kit.act(`malformed-rlp:${variant}`);
    }
    sent.push(istanbul(out.code, out.data));
    return sent;
  },
};

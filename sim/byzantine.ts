/**
 * Byzantine behaviours, injected between a node and its transport so the node's own code stays
 * honest and unchanged: a silent validator sends no QBFT messages; an equivocating proposer sends
 * one block to half its peers and a different, equally valid block to the other half; an invalid
 * justifier strips the round-change certificate from its round-change proposals.
 */
import type { Common } from '@ethereumjs/common';
import { blockFromRlp, blockToRlp, extraDataOf, withExtraData } from '../node/chain/block-hashing.ts';
import { decodeMessage, encodeMessage, MessageCode, signPayload, type ProposalMessage } from '../node/consensus/qbft/messages.ts';
import type { PeerId, Transport, WireMessage } from '../node/runtime/ports.ts';
import { privateKeyToAddress } from '../node/crypto/secp256k1.ts';

export type ByzantineBehaviour = 'equivocate' | 'silent' | 'invalid-justification';

export interface ByzantineControl {
  behaviour: ByzantineBehaviour | undefined;
}

function alternativeProposal(message: ProposalMessage, privateKey: Uint8Array, common: Common): ProposalMessage {
  const block = blockFromRlp(message.signed.payload.blockRlp, common);
  const extra = extraDataOf(block.header);
  const vanity = extra.vanity.slice();
  vanity[0] ^= 0xff;
  const other = withExtraData(block, { ...extra, vanity }, common);
  const signed = signPayload({ ...message.signed.payload, blockRlp: blockToRlp(other) }, privateKey);
  return { ...message, signed };
}

export function byzantineTransport(inner: Transport, control: ByzantineControl, privateKey: Uint8Array, common: Common): Transport {
  const own = privateKeyToAddress(privateKey);
  const transform = (to: PeerId, message: WireMessage): WireMessage | undefined => {
    const behaviour = control.behaviour;
    if (!behaviour || message.protocol !== 'istanbul') return message;
    if (behaviour === 'silent') return undefined;
    if (message.code !== MessageCode.PROPOSAL) return message;
    const decoded = decodeMessage(message.code, message.data) as ProposalMessage;
    if (decoded.signed.author !== own) return message; // relayed gossip passes through untouched
    if (behaviour === 'equivocate') {
      const peers = inner.peers();
      const secondHalf = peers.indexOf(to) >= Math.ceil(peers.length / 2);
      if (!secondHalf) return message;
      return { ...message, data: encodeMessage(alternativeProposal(decoded, privateKey, common)) };
    }
    if (decoded.signed.payload.round === 0) return message;
    return { ...message, data: encodeMessage({ ...decoded, roundChanges: decoded.roundChanges.slice(0, 1), prepares: [] }) };
  };
  return {
    get localId() {
      return inner.localId;
    },
    peers: () => inner.peers(),
    setHandlers: (h) => inner.setHandlers(h),
    peerForAddress: inner.peerForAddress ? (a) => inner.peerForAddress!(a) : undefined,
    send(to, message) {
      const out = transform(to, message);
      if (out) inner.send(to, out);
    },
  };
}

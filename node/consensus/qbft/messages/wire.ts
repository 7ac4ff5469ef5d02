/** Message wrappers on the wire (qbft-notes §2.4): what goes in a devp2p istanbul/100 message. */
import { RLP } from '@ethereumjs/rlp';
import { decodeSigned } from './signed.ts';
import { payloadCode } from './payloads.ts';
import { EMPTY_LIST, EMPTY_STRING, encodeRawList, isList, listItems } from './rlp-raw.ts';
import {
  MessageCode,
  type CommitPayload,
  type PreparePayload,
  type ProposalPayload,
  type QbftMessage,
  type RoundChangePayload,
  type Signed,
  type WireLayout,
} from './types.ts';

const MAX_PIGGYBACKED = 1000;

export function messageCode(message: QbftMessage): number {
  return payloadCode(message.signed.payload);
}

export function roundIdOf(message: QbftMessage): { sequence: number; round: number } {
  const { sequence, round } = message.signed.payload;
  return { sequence, round };
}

/**
 * Signed parts are emitted exactly as signed (`Signed.encoded`), so a proposal keeps the payload
 * layout it was signed with; `layout` shapes only the RoundChange wrapper.
 */
export function encodeMessage(message: QbftMessage, layout: WireLayout = 'besu26'): Uint8Array {
  switch (message.kind) {
    case 'prepare':
    case 'commit':
      return message.signed.encoded;
    case 'roundChange': {
      const items = [message.signed.encoded, message.preparedBlockRlp ?? EMPTY_LIST];
      if (layout === 'besu26') items.push(EMPTY_STRING);
      items.push(encodeRawList(message.prepares.map((p) => p.encoded)));
      return encodeRawList(items);
    }
    case 'proposal': {
      const justification = encodeRawList([
        encodeRawList(message.roundChanges.map((rc) => rc.encoded)),
        encodeRawList(message.prepares.map((p) => p.encoded)),
      ]);
      return encodeRawList([message.signed.encoded, justification]);
    }
  }
}

function signedList<P extends PreparePayload | RoundChangePayload>(code: number, raw: Uint8Array, what: string): Signed<P>[] {
  if (!isList(raw)) throw new Error(`${what} must be an RLP list`);
  const items = listItems(raw);
  if (items.length > MAX_PIGGYBACKED) throw new Error(`too many ${what}: ${items.length} > ${MAX_PIGGYBACKED}`);
  return items.map((item) => decodeSigned(code, item) as Signed<P>);
}

function decodeRoundChange(items: Uint8Array[]): QbftMessage {
  // legacy: [signed, block-or-[], prepares]; besu26: [signed, block-or-[], BAL-or-0x80, prepares]
  if (items.length !== 3 && items.length !== 4) throw new Error(`round change must have 3 or 4 items, got ${items.length}`);
  const signed = decodeSigned(MessageCode.ROUND_CHANGE, items[0]) as Signed<RoundChangePayload>;
  const block = items[1];
  if (!isList(block)) throw new Error('round change prepared block must be an RLP list');
  const prepares = signedList<PreparePayload>(MessageCode.PREPARE, items[items.length - 1], 'prepares');
  const hasBlock = block.length > 1;
  return hasBlock
    ? { kind: 'roundChange', signed, preparedBlockRlp: block, prepares }
    : { kind: 'roundChange', signed, prepares };
}

function decodeProposal(items: Uint8Array[]): QbftMessage {
  if (items.length !== 2) throw new Error(`proposal must have 2 items, got ${items.length}`);
  const signed = decodeSigned(MessageCode.PROPOSAL, items[0]) as Signed<ProposalPayload>;
  if (!isList(items[1])) throw new Error('proposal justification must be an RLP list');
  const justification = listItems(items[1]);
  if (justification.length !== 2) throw new Error(`proposal justification must have 2 items, got ${justification.length}`);
  const roundChanges = signedList<RoundChangePayload>(MessageCode.ROUND_CHANGE, justification[0], 'round changes');
  const prepares = signedList<PreparePayload>(MessageCode.PREPARE, justification[1], 'prepares');
  return { kind: 'proposal', signed, roundChanges, prepares };
}

/** Decodes either layout and recovers every author; throws on anything malformed. */
export function decodeMessage(code: number, data: Uint8Array): QbftMessage {
  if (!Object.values(MessageCode).includes(code as never)) throw new Error(`unknown QBFT message code 0x${code.toString(16)}`);
  // A private copy: decoded fields are views into it, and callers may reuse their buffers.
  const bytes = data.slice();
  try {
    RLP.decode(bytes);
  } catch (err) {
    throw new Error(`qbft message 0x${code.toString(16)}: invalid RLP: ${(err as Error).message}`);
  }
  try {
    if (!isList(bytes)) throw new Error('message must be an RLP list');
    switch (code) {
      case MessageCode.PREPARE:
        return { kind: 'prepare', signed: decodeSigned(code, bytes) as Signed<PreparePayload> };
      case MessageCode.COMMIT:
        return { kind: 'commit', signed: decodeSigned(code, bytes) as Signed<CommitPayload> };
      case MessageCode.ROUND_CHANGE:
        return decodeRoundChange(listItems(bytes));
      default:
        return decodeProposal(listItems(bytes));
    }
  } catch (err) {
    throw new Error(`qbft message 0x${code.toString(16)}: ${(err as Error).message}`);
  }
}

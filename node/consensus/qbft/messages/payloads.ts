/** Payload lists (qbft-notes §2.3): [sequence, round, ...] with Besu's scalar and length rules. */
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, bytesToSafeInt, intToBytes } from '../../../crypto/bytes.ts';
import { EMPTY_STRING, encodeRawList, isList, listItems, stringOf } from './rlp-raw.ts';
import { MessageCode, type Payload, type PreparedMetadata, type WireLayout } from './types.ts';

const MAX_ROUND = 0x7fffffff;

export function payloadCode(payload: Payload): number {
  switch (payload.kind) {
    case 'proposal':
      return MessageCode.PROPOSAL;
    case 'prepare':
      return MessageCode.PREPARE;
    case 'commit':
      return MessageCode.COMMIT;
    case 'roundChange':
      return MessageCode.ROUND_CHANGE;
  }
}

function checkRoundId(sequence: number, round: number): void {
  if (!Number.isSafeInteger(sequence) || sequence < 0) throw new Error(`invalid sequence ${sequence}`);
  checkRound(round);
}

function checkRound(round: number): void {
  if (!Number.isInteger(round) || round < 0 || round > MAX_ROUND) throw new Error(`invalid round ${round}`);
}

function checkLength(bytes: Uint8Array, length: number, what: string): Uint8Array {
  if (bytes.length !== length) throw new Error(`${what} must be ${length} bytes, got ${bytes.length}`);
  return bytes;
}

const scalar = (value: number): Uint8Array => RLP.encode(intToBytes(value));

/** The payload's RLP list, as signed. */
export function encodePayload(payload: Payload, layout: WireLayout): Uint8Array {
  checkRoundId(payload.sequence, payload.round);
  const head = [scalar(payload.sequence), scalar(payload.round)];
  switch (payload.kind) {
    case 'prepare':
      return encodeRawList([...head, RLP.encode(checkLength(payload.digest, 32, 'digest'))]);
    case 'commit':
      return encodeRawList([
        ...head,
        RLP.encode(checkLength(payload.digest, 32, 'digest')),
        RLP.encode(checkLength(payload.commitSeal, 65, 'commit seal')),
      ]);
    case 'roundChange': {
      const p = payload.prepared;
      if (p) checkRound(p.preparedRound);
      const prepared = p ? RLP.encode([intToBytes(p.preparedRound), checkLength(p.preparedBlockHash, 32, 'prepared block hash')]) : RLP.encode([]);
      return encodeRawList([...head, prepared]);
    }
    case 'proposal': {
      const items = [...head, payload.blockRlp];
      if (layout === 'besu26') items.push(payload.blockAccessList ?? EMPTY_STRING);
      return encodeRawList(items);
    }
  }
}

function readSequence(raw: Uint8Array): number {
  const bytes = stringOf(raw, 'sequence');
  if (bytes.length > 8) throw new Error('sequence does not fit in 8 bytes');
  return bytesToSafeInt(bytes, 'sequence');
}

function readRound(raw: Uint8Array, what = 'round'): number {
  const bytes = stringOf(raw, what);
  if (bytes.length > 4) throw new Error(`${what} does not fit in 4 bytes`);
  const value = bytesToBigInt(bytes);
  if (value > BigInt(MAX_ROUND)) throw new Error(`${what} out of range`);
  return Number(value);
}

function readBytes(raw: Uint8Array, length: number, what: string): Uint8Array {
  return checkLength(stringOf(raw, what), length, what);
}

function expectCount(items: Uint8Array[], counts: number[], what: string): void {
  if (!counts.includes(items.length)) throw new Error(`${what} must have ${counts.join(' or ')} items, got ${items.length}`);
}

function readPrepared(raw: Uint8Array): PreparedMetadata | undefined {
  const items = listItems(raw);
  if (items.length === 0) return undefined;
  expectCount(items, [2], 'prepared round metadata');
  return { preparedRound: readRound(items[0], 'prepared round'), preparedBlockHash: readBytes(items[1], 32, 'prepared block hash') };
}

/** Decodes a payload list for a message code; `raw` must already be valid RLP. */
export function decodePayload(code: number, raw: Uint8Array): Payload {
  const items = listItems(raw);
  if (items.length < 2) throw new Error(`payload must have at least 2 items, got ${items.length}`);
  const sequence = readSequence(items[0]);
  const round = readRound(items[1]);
  switch (code) {
    case MessageCode.PREPARE:
      expectCount(items, [3], 'prepare payload');
      return { kind: 'prepare', sequence, round, digest: readBytes(items[2], 32, 'digest') };
    case MessageCode.COMMIT:
      expectCount(items, [4], 'commit payload');
      return { kind: 'commit', sequence, round, digest: readBytes(items[2], 32, 'digest'), commitSeal: readBytes(items[3], 65, 'commit seal') };
    case MessageCode.ROUND_CHANGE: {
      expectCount(items, [3], 'round change payload');
      if (!isList(items[2])) throw new Error('prepared round metadata must be a list');
      const prepared = readPrepared(items[2]);
      return prepared ? { kind: 'roundChange', sequence, round, prepared } : { kind: 'roundChange', sequence, round };
    }
    case MessageCode.PROPOSAL: {
      expectCount(items, [3, 4], 'proposal payload');
      if (!isList(items[2])) throw new Error('proposed block must be an RLP list');
      const bal = items[3];
      const hasBal = bal !== undefined && !(bal.length === 1 && bal[0] === 0x80);
      return hasBal
        ? { kind: 'proposal', sequence, round, blockRlp: items[2], blockAccessList: bal }
        : { kind: 'proposal', sequence, round, blockRlp: items[2] };
    }
    default:
      throw new Error(`unknown QBFT message code 0x${code.toString(16)}`);
  }
}

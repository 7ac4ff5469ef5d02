/**
 * The checkers' decoder for QBFT messages (Besu's istanbul/100 sub-protocol), both wire layouts.
 *
 * SignedData = [payload, signature]; the signer signs keccak(RLP [code, payload]).
 * Payloads ([sequence = height, round, ...]):
 *   PROPOSAL 0x12     [h, r, block]                  legacy (GoQuorum, Besu < 26.1)
 *                     [h, r, block, accessList|0x80] Besu >= 26.1
 *   PREPARE 0x13      [h, r, digest32]
 *   COMMIT 0x14       [h, r, digest32, seal65]
 *   ROUND_CHANGE 0x15 [h, r, [] | [preparedRound, preparedDigest32]]
 * Messages:
 *   PROPOSAL     [signedProposal, [[signedRoundChange...], [signedPrepare...]]]
 *   PREPARE      signedPrepare;  COMMIT signedCommit
 *   ROUND_CHANGE [signedRoundChange, preparedBlock | [], [signedPrepare...]]             legacy
 *                [signedRoundChange, preparedBlock | [], accessList|0x80, [signedPrepare...]] Besu >= 26.1
 */
import { keccak, toHex, type Hex, type SignerRecovery } from './crypto.ts';
import { bytesOf, encodeList, encodeScalar, itemsOf, readRlp, scalarOf, type RlpItem } from './rlp.ts';

export const QbftCode = { PROPOSAL: 0x12, PREPARE: 0x13, COMMIT: 0x14, ROUND_CHANGE: 0x15 } as const;
export type QbftCodeValue = (typeof QbftCode)[keyof typeof QbftCode];

export function isQbftCode(code: number): code is QbftCodeValue {
  return code === QbftCode.PROPOSAL || code === QbftCode.PREPARE || code === QbftCode.COMMIT || code === QbftCode.ROUND_CHANGE;
}

export interface ProposalPayload {
  kind: 'proposal';
  height: number;
  round: number;
  blockRlp: Uint8Array;
}

export interface PreparePayload {
  kind: 'prepare';
  height: number;
  round: number;
  digest: Hex;
}

export interface CommitPayload {
  kind: 'commit';
  height: number;
  round: number;
  digest: Hex;
  seal: Uint8Array;
}

export interface RoundChangePayload {
  kind: 'round-change';
  height: number;
  round: number;
  prepared: { round: number; digest: Hex } | undefined;
}

export type QbftPayload = ProposalPayload | PreparePayload | CommitPayload | RoundChangePayload;

export interface Signed<P extends QbftPayload> {
  payload: P;
  /** The payload list's encoding, exactly as signed. */
  payloadRlp: Uint8Array;
  signature: Uint8Array;
  /** undefined when the signature does not recover. */
  signer: Hex | undefined;
}

export type QbftMessage =
  | { kind: 'proposal'; signed: Signed<ProposalPayload>; roundChanges: Signed<RoundChangePayload>[]; prepares: Signed<PreparePayload>[] }
  | { kind: 'prepare'; signed: Signed<PreparePayload> }
  | { kind: 'commit'; signed: Signed<CommitPayload> }
  | { kind: 'round-change'; signed: Signed<RoundChangePayload>; preparedBlockRlp: Uint8Array | undefined; prepares: Signed<PreparePayload>[] };

const MAX_ROUND = 0x7fffffff;

function fixed(item: RlpItem, length: number, what: string): Uint8Array {
  const bytes = bytesOf(item, what);
  if (bytes.length !== length) throw new Error(`${what} is ${bytes.length} bytes, not ${length}`);
  return bytes;
}

function round(item: RlpItem, what = 'round'): number {
  const r = scalarOf(item, what, 4);
  if (r > MAX_ROUND) throw new Error(`${what} ${r} is out of range`);
  return r;
}

function count(items: RlpItem[], allowed: number[], what: string): void {
  if (!allowed.includes(items.length)) throw new Error(`${what} has ${items.length} items, not ${allowed.join(' or ')}`);
}

function decodePayload(code: QbftCodeValue, item: RlpItem): QbftPayload {
  const items = itemsOf(item, 'payload');
  if (items.length < 2) throw new Error(`payload has ${items.length} items`);
  const height = scalarOf(items[0]!, 'sequence', 8);
  const r = round(items[1]!);
  switch (code) {
    case QbftCode.PREPARE:
      count(items, [3], 'prepare payload');
      return { kind: 'prepare', height, round: r, digest: toHex(fixed(items[2]!, 32, 'digest')) };
    case QbftCode.COMMIT:
      count(items, [4], 'commit payload');
      return { kind: 'commit', height, round: r, digest: toHex(fixed(items[2]!, 32, 'digest')), seal: fixed(items[3]!, 65, 'commit seal') };
    case QbftCode.ROUND_CHANGE: {
      count(items, [3], 'round change payload');
      const prepared = itemsOf(items[2]!, 'prepared metadata');
      if (prepared.length === 0) return { kind: 'round-change', height, round: r, prepared: undefined };
      count(prepared, [2], 'prepared metadata');
      return { kind: 'round-change', height, round: r, prepared: { round: round(prepared[0]!, 'prepared round'), digest: toHex(fixed(prepared[1]!, 32, 'prepared digest')) } };
    }
    case QbftCode.PROPOSAL: {
      count(items, [3, 4], 'proposal payload');
      if (!items[2]!.isList) throw new Error('proposed block must be an RLP list');
      return { kind: 'proposal', height, round: r, blockRlp: items[2]!.raw };
    }
  }
}

function decodeSigned<P extends QbftPayload>(code: QbftCodeValue, item: RlpItem, recovery: SignerRecovery): Signed<P> {
  const parts = itemsOf(item, 'signed data');
  count(parts, [2], 'signed data');
  const payloadItem = parts[0]!;
  const payload = decodePayload(code, payloadItem) as P;
  const signature = fixed(parts[1]!, 65, 'signature');
  const hash = keccak(encodeList([encodeScalar(code), payloadItem.raw]));
  return { payload, payloadRlp: payloadItem.raw, signature, signer: recovery.signer(hash, signature) };
}

function signedList<P extends QbftPayload>(code: QbftCodeValue, item: RlpItem, what: string, recovery: SignerRecovery): Signed<P>[] {
  return itemsOf(item, what).map((i) => decodeSigned<P>(code, i, recovery));
}

/** Decodes one QBFT message of either layout and recovers every signer; throws on malformed input. */
export function decodeQbftMessage(code: number, data: Uint8Array, recovery: SignerRecovery): QbftMessage {
  if (!isQbftCode(code)) throw new Error(`0x${code.toString(16)} is not a QBFT message code`);
  const top = readRlp(data);
  switch (code) {
    case QbftCode.PREPARE:
      return { kind: 'prepare', signed: decodeSigned(code, top, recovery) };
    case QbftCode.COMMIT:
      return { kind: 'commit', signed: decodeSigned(code, top, recovery) };
    case QbftCode.ROUND_CHANGE: {
      const items = itemsOf(top, 'round change');
      count(items, [3, 4], 'round change');
      const block = items[1]!;
      if (!block.isList) throw new Error('prepared block must be an RLP list');
      return {
        kind: 'round-change',
        signed: decodeSigned(code, items[0]!, recovery),
        preparedBlockRlp: block.content.length > 0 ? block.raw : undefined,
        prepares: signedList(QbftCode.PREPARE, items[items.length - 1]!, 'prepares', recovery),
      };
    }
    case QbftCode.PROPOSAL: {
      const items = itemsOf(top, 'proposal');
      count(items, [2], 'proposal');
      const justification = itemsOf(items[1]!, 'justification');
      count(justification, [2], 'justification');
      return {
        kind: 'proposal',
        signed: decodeSigned(code, items[0]!, recovery),
        roundChanges: signedList(QbftCode.ROUND_CHANGE, justification[0]!, 'round changes', recovery),
        prepares: signedList(QbftCode.PREPARE, justification[1]!, 'prepares', recovery),
      };
    }
  }
}

export type AnySigned = Signed<ProposalPayload> | Signed<PreparePayload> | Signed<CommitPayload> | Signed<RoundChangePayload>;

/** Every signed part a message carries: its own, then the piggy-backed round changes and prepares. */
export function signedParts(m: QbftMessage): AnySigned[] {
  switch (m.kind) {
    case 'proposal':
      return [m.signed, ...m.roundChanges, ...m.prepares];
    case 'round-change':
      return [m.signed, ...m.prepares];
    default:
      return [m.signed];
  }
}

/** The wire code of a payload kind. */
export function codeOfPayload(p: QbftPayload): QbftCodeValue {
  switch (p.kind) {
    case 'proposal':
      return QbftCode.PROPOSAL;
    case 'prepare':
      return QbftCode.PREPARE;
    case 'commit':
      return QbftCode.COMMIT;
    case 'round-change':
      return QbftCode.ROUND_CHANGE;
  }
}

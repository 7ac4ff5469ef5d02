/**
 * The eth/68 wire messages (devp2p `eth` capability): codes, typed shapes, and strict RLP codecs.
 * Headers and block bodies stay raw RLP values here; eth-blocks.ts turns them into ethereumjs
 * objects. Every decoder bounds its list sizes and throws a WireFormatError naming what is wrong.
 */
import { RLP, type Input } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes, type Hex } from '../crypto/bytes.ts';
import type { WireMessage } from '../runtime/ports.ts';
import {
  asBool,
  asBytes,
  asBytesList,
  asFixedBytes,
  asHash,
  asList,
  asSafeInt,
  asUint,
  decodeRlp,
  encodeListOfEncoded,
  fail,
  type RlpValue,
} from './rlp-shape.ts';

export const ETH_VERSION = 68;

export const EthCode = {
  Status: 0x00,
  NewBlockHashes: 0x01,
  Transactions: 0x02,
  GetBlockHeaders: 0x03,
  BlockHeaders: 0x04,
  GetBlockBodies: 0x05,
  BlockBodies: 0x06,
  NewBlock: 0x07,
  NewPooledTransactionHashes: 0x08,
  GetPooledTransactions: 0x09,
  PooledTransactions: 0x0a,
} as const;
export type EthCodeName = keyof typeof EthCode;

/** Bounds applied when decoding (and encoding) messages. */
export const EthLimits = {
  /** devp2p frames carry at most 16 MiB. */
  maxMessageBytes: 16 * 1024 * 1024,
  maxHeaders: 1024,
  maxBodies: 1024,
  maxHashes: 1024,
  maxTxsPerMessage: 1 << 16,
  maxOmmers: 16,
  maxWithdrawals: 1 << 16,
  maxPooledHashes: 4096,
  /** A header has 15 fields (frontier) up to 21 (prague); allow a few more for later forks. */
  minHeaderFields: 15,
  maxHeaderFields: 24,
} as const;

/** A transaction in its canonical serialized form: legacy = RLP list, typed = type byte || payload. */
export type SerializedTx = Uint8Array;
/** A transaction as it sits inside a block body: legacy as its field list, typed as a byte string. */
export type BodyTx = Uint8Array | Uint8Array[];
/** A block header as its list of RLP fields. */
export type HeaderFields = Uint8Array[];
export type WithdrawalFields = Uint8Array[];

export interface BlockBodyWire {
  transactions: BodyTx[];
  ommers: HeaderFields[];
  withdrawals?: WithdrawalFields[];
}
export interface BlockWire extends BlockBodyWire {
  header: HeaderFields;
}
export interface ForkId {
  hash: Uint8Array;
  next: bigint;
}
export type HeadersOrigin = { hash: Hex } | { number: number };

export interface StatusMsg {
  code: typeof EthCode.Status;
  version: number;
  networkId: bigint;
  td: bigint;
  bestHash: Hex;
  genesisHash: Hex;
  forkId: ForkId;
}
export interface NewBlockHashesMsg {
  code: typeof EthCode.NewBlockHashes;
  entries: Array<{ hash: Hex; number: number }>;
}
export interface TransactionsMsg {
  code: typeof EthCode.Transactions;
  txs: SerializedTx[];
}
export interface GetBlockHeadersMsg {
  code: typeof EthCode.GetBlockHeaders;
  requestId: bigint;
  origin: HeadersOrigin;
  amount: number;
  skip: number;
  reverse: boolean;
}
export interface BlockHeadersMsg {
  code: typeof EthCode.BlockHeaders;
  requestId: bigint;
  headers: HeaderFields[];
}
export interface GetBlockBodiesMsg {
  code: typeof EthCode.GetBlockBodies;
  requestId: bigint;
  hashes: Hex[];
}
export interface BlockBodiesMsg {
  code: typeof EthCode.BlockBodies;
  requestId: bigint;
  bodies: BlockBodyWire[];
}
export interface NewBlockMsg {
  code: typeof EthCode.NewBlock;
  block: BlockWire;
  td: bigint;
}
export interface NewPooledTransactionHashesMsg {
  code: typeof EthCode.NewPooledTransactionHashes;
  types: Uint8Array;
  sizes: number[];
  hashes: Hex[];
}
export interface GetPooledTransactionsMsg {
  code: typeof EthCode.GetPooledTransactions;
  requestId: bigint;
  hashes: Hex[];
}
export interface PooledTransactionsMsg {
  code: typeof EthCode.PooledTransactions;
  requestId: bigint;
  txs: SerializedTx[];
}

export type EthMessage =
  | StatusMsg
  | NewBlockHashesMsg
  | TransactionsMsg
  | GetBlockHeadersMsg
  | BlockHeadersMsg
  | GetBlockBodiesMsg
  | BlockBodiesMsg
  | NewBlockMsg
  | NewPooledTransactionHashesMsg
  | GetPooledTransactionsMsg
  | PooledTransactionsMsg;

const NAMES: Record<number, EthCodeName> = Object.fromEntries(Object.entries(EthCode).map(([k, v]) => [v, k])) as Record<
  number,
  EthCodeName
>;

export function ethMessageName(code: number): string {
  return NAMES[code] ?? `unknown(0x${code.toString(16)})`;
}

// ---------------------------------------------------------------------------------------------
// encoding

function hashBytes(h: Hex, what: string): Uint8Array {
  const b = hexToBytes(h);
  if (b.length !== 32) fail(`${what}: expected a 32-byte hash, got ${b.length} bytes`);
  return b;
}

function checkCount(n: number, max: number, what: string): void {
  if (n > max) fail(`${what}: ${n} items exceeds the limit of ${max}`);
}

/** The RLP encoding of one serialized transaction as a list item of Transactions/PooledTransactions. */
function encodedTxItem(tx: SerializedTx, what: string): Uint8Array {
  if (tx.length === 0) fail(`${what}: empty transaction`);
  if (tx[0] >= 0xc0) return tx; // legacy: already an RLP list
  if (tx[0] >= 0x80 || tx[0] === 0) fail(`${what}: not a legacy or typed transaction (first byte 0x${tx[0].toString(16)})`);
  return RLP.encode(tx); // typed: a byte string
}

function encodeTxList(txs: SerializedTx[], what: string): Uint8Array {
  checkCount(txs.length, EthLimits.maxTxsPerMessage, what);
  return encodeListOfEncoded(txs.map((tx, i) => encodedTxItem(tx, `${what}[${i}]`)));
}

function bodyInput(b: BlockBodyWire): Input {
  const out: Input[] = [b.transactions, b.ommers];
  if (b.withdrawals !== undefined) out.push(b.withdrawals);
  return out;
}

function payloadOf(m: EthMessage): Uint8Array {
  switch (m.code) {
    case EthCode.Status:
      if (m.forkId.hash.length !== 4) fail('Status.forkId.hash: expected 4 bytes');
      return RLP.encode([
        m.version,
        m.networkId,
        m.td,
        hashBytes(m.bestHash, 'Status.bestHash'),
        hashBytes(m.genesisHash, 'Status.genesisHash'),
        [m.forkId.hash, m.forkId.next],
      ]);
    case EthCode.NewBlockHashes:
      checkCount(m.entries.length, EthLimits.maxHashes, 'NewBlockHashes');
      return RLP.encode(m.entries.map((e) => [hashBytes(e.hash, 'NewBlockHashes.hash'), e.number]));
    case EthCode.Transactions:
      return encodeTxList(m.txs, 'Transactions');
    case EthCode.GetBlockHeaders: {
      const origin = 'hash' in m.origin ? hashBytes(m.origin.hash, 'GetBlockHeaders.origin') : m.origin.number;
      return RLP.encode([m.requestId, [origin, m.amount, m.skip, m.reverse ? 1 : 0]]);
    }
    case EthCode.BlockHeaders:
      checkCount(m.headers.length, EthLimits.maxHeaders, 'BlockHeaders');
      return RLP.encode([m.requestId, m.headers]);
    case EthCode.GetBlockBodies:
      checkCount(m.hashes.length, EthLimits.maxHashes, 'GetBlockBodies');
      return RLP.encode([m.requestId, m.hashes.map((h) => hashBytes(h, 'GetBlockBodies.hash'))]);
    case EthCode.BlockBodies:
      checkCount(m.bodies.length, EthLimits.maxBodies, 'BlockBodies');
      return RLP.encode([m.requestId, m.bodies.map(bodyInput)]);
    case EthCode.NewBlock:
      return RLP.encode([[m.block.header, ...(bodyInput(m.block) as Input[])], m.td]);
    case EthCode.NewPooledTransactionHashes:
      checkCount(m.hashes.length, EthLimits.maxPooledHashes, 'NewPooledTransactionHashes');
      if (m.types.length !== m.hashes.length || m.sizes.length !== m.hashes.length)
        fail('NewPooledTransactionHashes: types, sizes and hashes differ in length');
      return RLP.encode([m.types, m.sizes, m.hashes.map((h) => hashBytes(h, 'NewPooledTransactionHashes.hash'))]);
    case EthCode.GetPooledTransactions:
      checkCount(m.hashes.length, EthLimits.maxPooledHashes, 'GetPooledTransactions');
      return RLP.encode([m.requestId, m.hashes.map((h) => hashBytes(h, 'GetPooledTransactions.hash'))]);
    case EthCode.PooledTransactions:
      return encodeListOfEncoded([RLP.encode(m.requestId), encodeTxList(m.txs, 'PooledTransactions')]);
  }
}

export function encodeEthMessage(m: EthMessage): Uint8Array {
  const data = payloadOf(m);
  if (data.length > EthLimits.maxMessageBytes) fail(`${ethMessageName(m.code)}: ${data.length} bytes exceeds the message limit`);
  return data;
}

export function toWireMessage(m: EthMessage): WireMessage {
  return { protocol: 'eth', code: m.code, data: encodeEthMessage(m) };
}

// ---------------------------------------------------------------------------------------------
// decoding

function decodeSerializedTx(v: RlpValue, what: string): SerializedTx {
  if (Array.isArray(v)) {
    asBytesList(v, `${what} (legacy)`, 9, 9);
    return RLP.encode(v);
  }
  return checkTypedTx(v, what);
}

function checkTypedTx(b: Uint8Array, what: string): Uint8Array {
  if (b.length < 2) fail(`${what}: typed transaction too short`);
  if (b[0] === 0 || b[0] > 0x7f) fail(`${what}: invalid transaction type 0x${b[0].toString(16)}`);
  if (b[1] < 0xc0) fail(`${what}: typed transaction payload is not an RLP list`);
  return b;
}

function decodeBodyTx(v: RlpValue, what: string): BodyTx {
  if (Array.isArray(v)) return asBytesList(v, `${what} (legacy)`, 9, 9);
  return checkTypedTx(v, what);
}

export function decodeHeaderFields(v: RlpValue, what: string): HeaderFields {
  return asBytesList(v, what, EthLimits.minHeaderFields, EthLimits.maxHeaderFields);
}

function decodeBody(items: RlpValue[], what: string): BlockBodyWire {
  const txs = asList(items[0], `${what}.transactions`, 0, EthLimits.maxTxsPerMessage);
  const ommers = asList(items[1], `${what}.ommers`, 0, EthLimits.maxOmmers);
  const body: BlockBodyWire = {
    transactions: txs.map((t, i) => decodeBodyTx(t, `${what}.transactions[${i}]`)),
    ommers: ommers.map((o, i) => decodeHeaderFields(o, `${what}.ommers[${i}]`)),
  };
  if (items.length > 2) {
    const ws = asList(items[2], `${what}.withdrawals`, 0, EthLimits.maxWithdrawals);
    body.withdrawals = ws.map((w, i) => asBytesList(w, `${what}.withdrawals[${i}]`, 4, 4));
  }
  return body;
}

function decodeHashes(v: RlpValue, max: number, what: string): Hex[] {
  return asList(v, what, 0, max).map((h, i) => asHash(h, `${what}[${i}]`));
}

function decodeRequest(data: Uint8Array, what: string): { requestId: bigint; body: RlpValue } {
  const top = asList(decodeRlp(data, EthLimits.maxMessageBytes, what), what, 2, 2);
  return { requestId: asUint(top[0], `${what}.requestId`, 8), body: top[1] };
}

/** Decodes one eth/68 message; throws a WireFormatError on any deviation from the format. */
export function decodeEthMessage(code: number, data: Uint8Array): EthMessage {
  const what = ethMessageName(code);
  switch (code) {
    case EthCode.Status: {
      const f = asList(decodeRlp(data, EthLimits.maxMessageBytes, what), what, 6, 6);
      const fork = asList(f[5], 'Status.forkId', 2, 2);
      return {
        code,
        version: asSafeInt(f[0], 'Status.version'),
        networkId: asUint(f[1], 'Status.networkId', 8),
        td: asUint(f[2], 'Status.td'),
        bestHash: asHash(f[3], 'Status.bestHash'),
        genesisHash: asHash(f[4], 'Status.genesisHash'),
        forkId: { hash: asFixedBytes(fork[0], 4, 'Status.forkId.hash'), next: asUint(fork[1], 'Status.forkId.next', 8) },
      };
    }
    case EthCode.NewBlockHashes: {
      const list = asList(decodeRlp(data, EthLimits.maxMessageBytes, what), what, 0, EthLimits.maxHashes);
      return {
        code,
        entries: list.map((e, i) => {
          const p = asList(e, `${what}[${i}]`, 2, 2);
          return { hash: asHash(p[0], `${what}[${i}].hash`), number: asSafeInt(p[1], `${what}[${i}].number`) };
        }),
      };
    }
    case EthCode.Transactions: {
      const list = asList(decodeRlp(data, EthLimits.maxMessageBytes, what), what, 0, EthLimits.maxTxsPerMessage);
      return { code, txs: list.map((t, i) => decodeSerializedTx(t, `${what}[${i}]`)) };
    }
    case EthCode.GetBlockHeaders: {
      const { requestId, body } = decodeRequest(data, what);
      const q = asList(body, `${what}.query`, 4, 4);
      const o = asBytes(q[0], `${what}.origin`);
      let origin: HeadersOrigin;
      if (o.length === 32) origin = { hash: bytesToHex(o) };
      else if (o.length <= 8) origin = { number: asSafeInt(o, `${what}.origin`) };
      else fail(`${what}.origin: expected a 32-byte hash or a number, got ${o.length} bytes`);
      return {
        code,
        requestId,
        origin,
        amount: asSafeInt(q[1], `${what}.amount`),
        skip: asSafeInt(q[2], `${what}.skip`),
        reverse: asBool(q[3], `${what}.reverse`),
      };
    }
    case EthCode.BlockHeaders: {
      const { requestId, body } = decodeRequest(data, what);
      const list = asList(body, `${what}.headers`, 0, EthLimits.maxHeaders);
      return { code, requestId, headers: list.map((h, i) => decodeHeaderFields(h, `${what}.headers[${i}]`)) };
    }
    case EthCode.GetBlockBodies: {
      const { requestId, body } = decodeRequest(data, what);
      return { code, requestId, hashes: decodeHashes(body, EthLimits.maxHashes, `${what}.hashes`) };
    }
    case EthCode.BlockBodies: {
      const { requestId, body } = decodeRequest(data, what);
      const list = asList(body, `${what}.bodies`, 0, EthLimits.maxBodies);
      return {
        code,
        requestId,
        bodies: list.map((b, i) => decodeBody(asList(b, `${what}.bodies[${i}]`, 2, 3), `${what}.bodies[${i}]`)),
      };
    }
    case EthCode.NewBlock: {
      const top = asList(decodeRlp(data, EthLimits.maxMessageBytes, what), what, 2, 2);
      const b = asList(top[0], `${what}.block`, 3, 4);
      const block: BlockWire = { header: decodeHeaderFields(b[0], `${what}.block.header`), ...decodeBody(b.slice(1), `${what}.block`) };
      return { code, block, td: asUint(top[1], `${what}.td`) };
    }
    case EthCode.NewPooledTransactionHashes: {
      const top = asList(decodeRlp(data, EthLimits.maxMessageBytes, what), what, 3, 3);
      const types = asBytes(top[0], `${what}.types`, EthLimits.maxPooledHashes);
      const sizes = asList(top[1], `${what}.sizes`, 0, EthLimits.maxPooledHashes).map((s, i) => asSafeInt(s, `${what}.sizes[${i}]`));
      const hashes = decodeHashes(top[2], EthLimits.maxPooledHashes, `${what}.hashes`);
      if (types.length !== hashes.length || sizes.length !== hashes.length)
        fail(`${what}: types (${types.length}), sizes (${sizes.length}) and hashes (${hashes.length}) differ in length`);
      return { code, types: Uint8Array.from(types), sizes, hashes };
    }
    case EthCode.GetPooledTransactions: {
      const { requestId, body } = decodeRequest(data, what);
      return { code, requestId, hashes: decodeHashes(body, EthLimits.maxPooledHashes, `${what}.hashes`) };
    }
    case EthCode.PooledTransactions: {
      const { requestId, body } = decodeRequest(data, what);
      const list = asList(body, `${what}.txs`, 0, EthLimits.maxTxsPerMessage);
      return { code, requestId, txs: list.map((t, i) => decodeSerializedTx(t, `${what}.txs[${i}]`)) };
    }
    default:
      fail(`unknown eth message code 0x${code.toString(16)}`);
  }
}

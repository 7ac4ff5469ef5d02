/**
 * Parameter parsing with Besu's leniency and Besu's error answers, plus result formatting helpers.
 *
 * Facts (hyperledger/besu snapshot 3fd224e2, 2026-03-29):
 * - JsonRpcParameter (internal/parameters/JsonRpcParameter.java): a parameter that is absent or JSON
 *   null counts as missing; a missing required parameter and an unparsable one give the same answer.
 *   Each method catches the failure and throws InvalidJsonRpcParameters with its own RpcErrorType,
 *   whose message is what the client sees (e.g. eth_getBalance address -> INVALID_ADDRESS_PARAMS,
 *   block -> INVALID_BLOCK_PARAMS; eth_getBlockByNumber block -> INVALID_BLOCK_NUMBER_PARAMS,
 *   flag -> INVALID_RETURN_COMPLETE_TRANSACTION_PARAMS; eth_getBlockByHash hash ->
 *   INVALID_BLOCK_HASH_PARAMS; eth_getTransactionByHash -> INVALID_TRANSACTION_HASH_PARAMS;
 *   eth_getStorageAt slot -> INVALID_POSITION_PARAMS; eth_call/eth_estimateGas object ->
 *   INVALID_CALL_PARAMS; eth_getLogs/eth_newFilter -> INVALID_FILTER_PARAMS). Every parser here
 *   therefore takes the RpcErrorType name to throw. Extra parameters are ignored
 *   (JsonRpcHttpServiceTest.extraneousParameters).
 * - Hex strings (tuweni BytesValues.fromRawHexString): the "0x" prefix is optional and only
 *   lowercase "0x" is a prefix; "lenient" parsing accepts an odd digit count and left-pads to the
 *   destination size; strict parsing rejects an odd digit count.
 *   Address.fromHexString: lenient, at most 20 bytes, left-padded ("0x1" is 0x00…01).
 *   Hash.fromHexString: strict, exactly 32 bytes. Wei / UInt256Parameter (UInt256.fromHexString):
 *   lenient, at most 32 bytes, leading zeros allowed ("0x0001" = 1, "0x" = 0).
 *   UnsignedLongParameter: a JSON integer, or hex digits with or without "0x" (Long.parseUnsignedLong
 *   radix 16). UnsignedIntParameter: a JSON integer or Integer.decode text, >= 0.
 * - BlockParameter: tags case-insensitive ("earliest" "latest" "pending" "finalized" "safe"), else
 *   Long.decode: decimal, "0x"/"0X"/"#" hex, a leading "0" means octal, optional sign. Only JSON
 *   strings (no int creator). BlockParameterOrBlockHash (EIP-1898): the same tags; a string of >= 65
 *   characters is a hash (lenient); a longer-than-16-character string is otherwise rejected
 *   ("hex number > 64 bits"); an object {blockHash, requireCanonical} or {blockNumber}.
 * - CallParameter (ethereum/core/.../transaction/CallParameter.java): from, to, gas, gasPrice,
 *   maxPriorityFeePerGas, maxFeePerGas, maxFeePerBlobGas, value, accessList, blobVersionedHashes,
 *   authorizationList, nonce, strict, chainId, input, data; unknown properties ignored; input and
 *   data both present and different -> "Only one of 'input' or 'data' should be provided", which
 *   CallParameterUtil answers as INVALID_CALL_PARAMS. gas and nonce are capped at Long.MAX_VALUE
 *   (OptionalUnsignedLongDeserializer).
 * - FilterParameter + TopicsDeserializer: address is one address or a list; topics is a list whose
 *   entries are a topic, null (any) or a list of alternatives (null inside means any); blockHash
 *   (alias "blockhash") excludes fromBlock/toBlock (isValid, answered INVALID_FILTER_PARAMS);
 *   fromBlock/toBlock default to latest.
 */
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import { rpcError, type RpcErrorTypeName } from './errors.ts';
import type { AccessListEntry, Authorization, CallRequest } from '../execution/calls/call-types.ts';

// ------------------------------------------------------------------------------------------------
// Low-level helpers

function fail(type: RpcErrorTypeName): never {
  throw rpcError(type);
}

const HEX_DIGITS = /^[0-9a-fA-F]*$/;

/**
 * tuweni BytesValues.fromRawHexString: lowercase hex digits (no prefix) of `destSize` bytes
 * (`destSize` < 0: natural size), or undefined when the text is not valid.
 */
function rawHex(str: string, destSize: number, lenient: boolean): string | undefined {
  let hex = str.length >= 2 && str.charCodeAt(0) === 48 && str.charCodeAt(1) === 120 ? str.slice(2) : str;
  if (hex.length % 2 !== 0) {
    if (!lenient) return undefined;
    hex = '0' + hex;
  }
  if (!HEX_DIGITS.test(hex)) return undefined;
  const size = hex.length / 2;
  if (destSize >= 0) {
    if (size > destSize) return undefined;
    if (size < destSize) hex = '0'.repeat((destSize - size) * 2) + hex;
  }
  return hex.toLowerCase();
}

/** Java Long.decode / Integer.decode (ASCII digits only); undefined when invalid or out of range. */
export function javaDecode(s: string, bits: 32 | 64 = 64): bigint | undefined {
  if (s.length === 0) return undefined;
  let i = 0;
  let negative = false;
  let radix = 10;
  if (s[0] === '-') {
    negative = true;
    i++;
  } else if (s[0] === '+') i++;
  if (s.startsWith('0x', i) || s.startsWith('0X', i)) {
    i += 2;
    radix = 16;
  } else if (s.startsWith('#', i)) {
    i++;
    radix = 16;
  } else if (s.startsWith('0', i) && s.length > 1 + i) {
    i++;
    radix = 8;
  }
  let digits = s.slice(i);
  const re = radix === 16 ? /^[0-9a-fA-F]+$/ : radix === 10 ? /^[0-9]+$/ : /^[0-7]+$/;
  if (!re.test(digits)) return undefined; // also rejects a sign in the wrong position
  digits = digits.replace(/^0+(?=.)/, '');
  if (digits.length > 64) return undefined;
  let v = BigInt(radix === 16 ? '0x' + digits : radix === 8 ? '0o' + digits : digits);
  if (negative) v = -v;
  const limit = 1n << BigInt(bits - 1);
  if (v >= limit || v < -limit) return undefined;
  return v;
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** A member that is absent or JSON null counts as absent (Jackson Optional / JsonRpcParameter). */
function member(obj: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

const UINT64_MAX = (1n << 64n) - 1n;
const LONG_MAX = (1n << 63n) - 1n;

// ------------------------------------------------------------------------------------------------
// Parameter access

/**
 * Besu's JsonRpcRequest.getParamLength(): 0 when params is empty or its first element is null,
 * else params.length.
 */
export function paramLength(params: readonly unknown[]): number {
  return params.length === 0 || params[0] === null || params[0] === undefined ? 0 : params.length;
}

/** Throws INVALID_PARAM_COUNT ("Invalid number of params") unless min <= paramLength <= max. */
export function requireParams(
  params: readonly unknown[],
  min: number,
  max: number = Number.POSITIVE_INFINITY,
  type: RpcErrorTypeName = 'INVALID_PARAM_COUNT',
): void {
  const n = paramLength(params);
  if (n < min || n > max) fail(type);
}

/** Parses an optional parameter: undefined when absent or null, else `parse(x)`. */
export function optional<T>(x: unknown, parse: (x: unknown) => T): T | undefined {
  return x === undefined || x === null ? undefined : parse(x);
}

// ------------------------------------------------------------------------------------------------
// Scalars

/** Address.fromHexString (lenient, <= 20 bytes, left-padded). Lowercase 0x-prefixed 40 digits. */
export function parseAddress(x: unknown, type: RpcErrorTypeName = 'INVALID_ADDRESS_PARAMS'): Hex {
  if (typeof x !== 'string' || x.length === 0) fail(type);
  const h = rawHex(x, 20, true);
  if (h === undefined) fail(type);
  return `0x${h}`;
}

/** Hash.fromHexString (strict: exactly 32 bytes; "0x" optional). Lowercase 0x-prefixed. */
export function parseHash32(x: unknown, type: RpcErrorTypeName = 'INVALID_PARAMS'): Hex {
  if (typeof x !== 'string') fail(type);
  const h = rawHex(x, -1, false);
  if (h === undefined || h.length !== 64) fail(type);
  return `0x${h}`;
}

/**
 * A 256-bit quantity as Besu's Wei / UInt256Parameter read it (UInt256.fromHexString: lenient hex,
 * "0x" optional, leading zeros and odd digit counts allowed, "0x" = 0, at most 32 bytes). JSON
 * strings only.
 */
export function parseQuantity(x: unknown, type: RpcErrorTypeName = 'INVALID_PARAMS'): bigint {
  if (typeof x !== 'string' || x.length === 0) fail(type);
  const h = rawHex(x, 32, true);
  if (h === undefined) fail(type);
  return BigInt('0x' + h);
}

/**
 * UnsignedLongParameter: a non-negative JSON integer, or a hex string with or without "0x"
 * (Long.parseUnsignedLong(s, 16)): 0 .. 2^64-1.
 */
export function parseUnsignedLong(x: unknown, type: RpcErrorTypeName = 'INVALID_PARAMS'): bigint {
  if (typeof x === 'number') {
    if (!Number.isSafeInteger(x) || x < 0) fail(type);
    return BigInt(x);
  }
  if (typeof x !== 'string') fail(type);
  let s = x.startsWith('0x') ? x.slice(2) : x;
  if (s.startsWith('+')) s = s.slice(1);
  if (s.length === 0 || !HEX_DIGITS.test(s)) fail(type);
  s = s.replace(/^0+(?=.)/, '');
  if (s.length > 16) fail(type);
  const v = BigInt('0x' + s);
  if (v > UINT64_MAX) fail(type);
  return v;
}

/** UnsignedIntParameter: a JSON integer or Integer.decode text (decimal, 0x/#-hex, 0-octal), 0 .. 2^31-1. */
export function parseUnsignedInt(x: unknown, type: RpcErrorTypeName = 'INVALID_PARAMS'): number {
  if (typeof x === 'number') {
    if (!Number.isInteger(x) || x < 0 || x > 0x7fffffff) fail(type);
    return x;
  }
  if (typeof x !== 'string') fail(type);
  const v = javaDecode(x, 32);
  if (v === undefined || v < 0n) fail(type);
  return Number(v);
}

/** Bytes.fromHexString (strict: even digit count, "0x" optional). */
export function parseData(x: unknown, type: RpcErrorTypeName = 'INVALID_PARAMS'): Uint8Array {
  if (typeof x !== 'string') fail(type);
  const h = rawHex(x, -1, false);
  if (h === undefined) fail(type);
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/**
 * A JSON boolean, or the strings Jackson's Boolean deserializer accepts ("true", "True", "TRUE",
 * "false", "False", "FALSE", surrounding blanks trimmed). Objects, arrays, null -> error.
 */
export function parseBoolean(x: unknown, type: RpcErrorTypeName = 'INVALID_PARAMS'): boolean {
  if (typeof x === 'boolean') return x;
  if (typeof x === 'string') {
    const t = x.trim();
    if (t === 'true' || t === 'True' || t === 'TRUE') return true;
    if (t === 'false' || t === 'False' || t === 'FALSE') return false;
  }
  fail(type);
}

// ------------------------------------------------------------------------------------------------
// Block parameters

export type BlockTag = 'latest' | 'earliest' | 'pending' | 'finalized' | 'safe';
export type BlockParam = { kind: 'number'; number: bigint } | { kind: 'tag'; tag: BlockTag };
export type BlockParamOrHash = BlockParam | { kind: 'hash'; hash: Hex; requireCanonical: boolean };

const TAGS: ReadonlySet<string> = new Set(['latest', 'earliest', 'pending', 'finalized', 'safe']);

/**
 * BlockParameter: a tag (any case) or a number by Long.decode ("0x1f", "31", "#1f", "037" octal,
 * leading zeros allowed). JSON strings only. NOTE: like Besu, a negative number ("-1") parses;
 * methods must treat it as a block that does not exist.
 */
export function parseBlockParam(x: unknown, type: RpcErrorTypeName = 'INVALID_BLOCK_PARAMS'): BlockParam {
  if (typeof x !== 'string') fail(type);
  const lower = x.toLowerCase();
  if (TAGS.has(lower)) return { kind: 'tag', tag: lower as BlockTag };
  const n = javaDecode(x, 64);
  if (n === undefined) fail(type);
  return { kind: 'number', number: n };
}

/**
 * BlockParameterOrBlockHash (EIP-1898): everything parseBlockParam accepts (but a string longer than
 * 16 characters that is not a hash is rejected, as Besu does), a 32-byte hash as a string of at least
 * 65 characters (lenient: "0x" + 64 digits), or an object `{ blockHash, requireCanonical? }` /
 * `{ blockNumber }` (blockNumber by Long.decode; a JSON integer is read as its decimal text).
 * requireCanonical follows Jackson asBoolean(): true, "true", or a non-zero number.
 */
export function parseBlockParamOrHash(
  x: unknown,
  type: RpcErrorTypeName = 'INVALID_BLOCK_PARAMS',
): BlockParamOrHash {
  if (typeof x === 'string') {
    const lower = x.toLowerCase();
    if (TAGS.has(lower)) return { kind: 'tag', tag: lower as BlockTag };
    if (lower.length >= 65) {
      const h = rawHex(lower, 32, true);
      if (h === undefined) fail(type);
      return { kind: 'hash', hash: `0x${h}`, requireCanonical: false };
    }
    if (lower.length > 16) fail(type);
    const n = javaDecode(x, 64);
    if (n === undefined) fail(type);
    return { kind: 'number', number: n };
  }
  if (!isPlainObject(x)) fail(type);
  if (Object.hasOwn(x, 'blockHash')) {
    const text = nodeText(x.blockHash);
    if (text === undefined) fail(type);
    const h = rawHex(text, 32, true);
    if (h === undefined) fail(type);
    return { kind: 'hash', hash: `0x${h}`, requireCanonical: asBoolean(member(x, 'requireCanonical')) };
  }
  const text = nodeText(member(x, 'blockNumber'));
  if (text === undefined) fail(type);
  const n = javaDecode(text, 64);
  if (n === undefined) fail(type);
  return { kind: 'number', number: n };
}

/** Jackson JsonNode.asText() for scalars; undefined for absent, null, containers. */
function nodeText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return String(v);
  return undefined;
}

/** Jackson JsonNode.asBoolean(). */
function asBoolean(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return v.trim() === 'true';
  if (typeof v === 'number') return v !== 0;
  return false;
}

// ------------------------------------------------------------------------------------------------
// eth_call / eth_estimateGas object: execution's one call type (execution/calls/call-types.ts)

/** UInt64 lenient hex capped at Long.MAX_VALUE (OptionalUnsignedLongDeserializer). */
function parseCappedUInt64(x: unknown, type: RpcErrorTypeName): bigint {
  if (typeof x !== 'string' || x.length === 0) fail(type);
  const h = rawHex(x, -1, true);
  if (h === undefined) fail(type);
  const v = BigInt('0x' + (h.length === 0 ? '0' : h));
  if (v > UINT64_MAX) fail(type);
  return v > LONG_MAX ? LONG_MAX : v;
}

/** Bytes32.fromHexString: strict on odd digit counts, left-padded to 32 bytes. */
function parseBytes32Padded(x: unknown, type: RpcErrorTypeName): Hex {
  if (typeof x !== 'string') fail(type);
  const h = rawHex(x, 32, false);
  if (h === undefined) fail(type);
  return `0x${h}`;
}

/** At most this many tuples in one call object (a transaction this large would not fit a block). */
const MAX_AUTHORIZATIONS = 4096;

function parseAuthorizationList(x: unknown, type: RpcErrorTypeName): Authorization[] {
  if (!Array.isArray(x) || x.length > MAX_AUTHORIZATIONS) fail(type);
  return x.map((entry) => {
    if (!isPlainObject(entry)) fail(type);
    const field = (key: string) => {
      const v = member(entry, key);
      if (v === undefined || v === null) fail(type);
      return v;
    };
    const parity = member(entry, 'yParity') ?? member(entry, 'v');
    if (parity === undefined || parity === null) fail(type);
    const yParity = parseQuantity(parity, type);
    if (yParity > 1n) fail(type);
    return {
      chainId: parseQuantity(field('chainId'), type),
      address: parseAddress(field('address'), type),
      nonce: parseQuantity(field('nonce'), type),
      yParity: Number(yParity),
      r: parseQuantity(field('r'), type),
      s: parseQuantity(field('s'), type),
    };
  });
}

function parseAccessList(x: unknown, type: RpcErrorTypeName): AccessListEntry[] {
  if (!Array.isArray(x)) fail(type);
  return x.map((e) => {
    if (!isPlainObject(e)) fail(type);
    const keys = member(e, 'storageKeys');
    if (!Array.isArray(keys)) fail(type);
    const address = member(e, 'address');
    if (address === undefined || address === null) fail(type);
    return { address: parseAddress(address, type), storageKeys: keys.map((k) => parseBytes32Padded(k, type)) };
  });
}

/**
 * Besu's CallParameter (eth_call, eth_estimateGas, eth_createAccessList, debug_traceCall...).
 * Numeric fields must be hex strings. Throws `type` (INVALID_CALL_PARAMS) on anything invalid,
 * including `input` and `data` both present and different.
 */
export function parseCallObject(x: unknown, type: RpcErrorTypeName = 'INVALID_CALL_PARAMS'): CallRequest {
  if (!isPlainObject(x)) fail(type);
  const out: CallRequest = {};
  const opt = <T>(key: string, parse: (v: unknown, t: RpcErrorTypeName) => T): T | undefined => {
    const v = member(x, key);
    return v === undefined || v === null ? undefined : parse(v, type);
  };
  const from = opt('from', parseAddress);
  if (from !== undefined) out.from = from;
  const to = opt('to', parseAddress);
  if (to !== undefined) out.to = to;
  const gas = opt('gas', parseCappedUInt64);
  if (gas !== undefined) out.gas = gas;
  const gasPrice = opt('gasPrice', parseQuantity);
  if (gasPrice !== undefined) out.gasPrice = gasPrice;
  const maxFeePerGas = opt('maxFeePerGas', parseQuantity);
  if (maxFeePerGas !== undefined) out.maxFeePerGas = maxFeePerGas;
  const maxPriorityFeePerGas = opt('maxPriorityFeePerGas', parseQuantity);
  if (maxPriorityFeePerGas !== undefined) out.maxPriorityFeePerGas = maxPriorityFeePerGas;
  const maxFeePerBlobGas = opt('maxFeePerBlobGas', parseQuantity);
  if (maxFeePerBlobGas !== undefined) out.maxFeePerBlobGas = maxFeePerBlobGas;
  const value = opt('value', parseQuantity);
  if (value !== undefined) out.value = value;
  const nonce = opt('nonce', parseCappedUInt64);
  if (nonce !== undefined) out.nonce = nonce;
  const chainId = opt('chainId', parseQuantity);
  if (chainId !== undefined) out.chainId = chainId;
  const input = opt('input', parseData);
  const data = opt('data', parseData);
  if (input !== undefined && data !== undefined && bytesToHex(input) !== bytesToHex(data)) fail(type);
  const payload = input ?? data;
  if (payload !== undefined) out.data = payload;
  const accessList = opt('accessList', parseAccessList);
  if (accessList !== undefined) out.accessList = accessList;
  const blobs = opt('blobVersionedHashes', (v, t) => {
    if (!Array.isArray(v)) fail(t);
    return v.map((h) => parseHash32(h, t));
  });
  if (blobs !== undefined) out.blobVersionedHashes = blobs;
  const auth = opt('authorizationList', parseAuthorizationList);
  if (auth !== undefined) out.authorizationList = auth;
  const strict = opt('strict', parseBoolean);
  if (strict !== undefined) out.strict = strict;
  return out;
}

// ------------------------------------------------------------------------------------------------
// Log filters

/**
 * Topic criteria per position, as Besu's List<List<LogTopic>>: a position matches when its list is
 * empty or contains null (any) or contains the log's topic; a log needs at least as many topics as
 * there are positions (LogsQuery.matchesTopics).
 */
export type TopicFilter = Array<Array<Hex | null>>;

export interface FilterObject {
  fromBlock: BlockParam;
  toBlock: BlockParam;
  /** True when fromBlock / toBlock were given (not defaulted to latest). */
  fromBlockGiven: boolean;
  toBlockGiven: boolean;
  addresses: Hex[];
  topics: TopicFilter;
  blockHash?: Hex;
  /** trace_filter members. */
  fromAddress: Hex[];
  toAddress: Hex[];
  after?: number;
  count?: number;
}

function parseAddressList(v: unknown, type: RpcErrorTypeName): Hex[] {
  if (v === undefined || v === null) return [];
  const list = Array.isArray(v) ? v : [v];
  return list.map((a) => parseAddress(a, type));
}

/** LogTopic.fromHexString of a JSON node's textValue(): non-strings are null (any topic). */
function topicOf(v: unknown, type: RpcErrorTypeName): Hex | null {
  return typeof v === 'string' ? parseBytes32Padded(v, type) : null;
}

/** Besu's TopicsDeserializer. */
export function parseTopics(x: unknown, type: RpcErrorTypeName = 'INVALID_FILTER_PARAMS'): TopicFilter {
  if (x === undefined || x === null) return [];
  if (!Array.isArray(x)) return [[topicOf(x, type)]];
  return x.map((child) => (Array.isArray(child) ? child.map((t) => topicOf(t, type)) : [topicOf(child, type)]));
}

function parseInt32(x: unknown, type: RpcErrorTypeName): number {
  if (typeof x === 'number' && Number.isInteger(x) && x >= -0x80000000 && x <= 0x7fffffff) return x;
  if (typeof x === 'string' && /^[+-]?[0-9]+$/.test(x.trim())) {
    const v = BigInt(x.trim());
    if (v >= -0x80000000n && v <= 0x7fffffffn) return Number(v);
  }
  fail(type);
}

/**
 * Besu's FilterParameter (eth_getLogs, eth_newFilter, eth_subscribe "logs", trace_filter). Throws
 * `type` when a member is invalid or when blockHash is combined with fromBlock/toBlock.
 */
export function parseFilterObject(x: unknown, type: RpcErrorTypeName = 'INVALID_FILTER_PARAMS'): FilterObject {
  if (!isPlainObject(x)) fail(type);
  const rawFrom = member(x, 'fromBlock');
  const rawTo = member(x, 'toBlock');
  const fromBlockGiven = rawFrom !== undefined && rawFrom !== null;
  const toBlockGiven = rawTo !== undefined && rawTo !== null;
  const latest: BlockParam = { kind: 'tag', tag: 'latest' };
  const out: FilterObject = {
    fromBlock: fromBlockGiven ? parseBlockParam(rawFrom, type) : latest,
    toBlock: toBlockGiven ? parseBlockParam(rawTo, type) : { ...latest },
    fromBlockGiven,
    toBlockGiven,
    addresses: parseAddressList(member(x, 'address'), type),
    topics: parseTopics(member(x, 'topics'), type),
    fromAddress: parseAddressList(member(x, 'fromAddress'), type),
    toAddress: parseAddressList(member(x, 'toAddress'), type),
  };
  let rawHash = member(x, 'blockHash');
  if (rawHash === undefined || rawHash === null) rawHash = member(x, 'blockhash');
  if (rawHash !== undefined && rawHash !== null) {
    out.blockHash = parseHash32(rawHash, type);
    if (fromBlockGiven || toBlockGiven) fail(type);
  }
  const after = member(x, 'after');
  if (after !== undefined && after !== null) out.after = parseInt32(after, type);
  const count = member(x, 'count');
  if (count !== undefined && count !== null) out.count = parseInt32(count, type);
  return out;
}

/** LogsQuery.matchesTopics: whether a log's topics satisfy a topic filter. */
export function topicsMatch(filter: TopicFilter, logTopics: readonly string[]): boolean {
  if (filter.length === 0) return true;
  if (logTopics.length < filter.length) return false;
  for (let i = 0; i < filter.length; i++) {
    const criteria = filter[i];
    if (criteria.length === 0 || criteria.includes(null)) continue;
    const t = logTopics[i].toLowerCase();
    if (!criteria.includes(t as Hex)) return false;
  }
  return true;
}

// ------------------------------------------------------------------------------------------------
// Formatting

/** Besu Quantity.create: minimal lowercase hex, "0x0" for zero. Throws RangeError on negatives. */
export function quantity(value: bigint | number): Hex {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new RangeError(`not an integer quantity: ${value}`);
  const v = typeof value === 'number' ? BigInt(value) : value;
  if (v < 0n) throw new RangeError(`negative quantity ${v}`);
  return `0x${v.toString(16)}`;
}

/** Full lowercase hex of a byte string ("0x" when empty). */
export function dataHex(bytes: Uint8Array): Hex {
  return bytesToHex(bytes);
}

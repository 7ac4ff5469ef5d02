/**
 * Besu's genesis JSON: top-level header fields, `alloc`, `config` (chain id, hardfork blocks and
 * times, `qbft` options) and `config.transitions.qbft`. Keys are case-insensitive at every level
 * (Besu lower-cases them: JsonUtil.normalizeKeys); values are parsed the way Besu parses them
 * (config/GenesisConfig.java, GenesisReader.java, JsonBftConfigOptions.java, BftFork.java,
 * QbftFork.java, QbftForksSchedulesFactory.java, ProtocolScheduleBuilder.validateForkOrder).
 * Every rejected value raises a GenesisError naming the field. What Besu accepts but reads otherwise
 * than probably meant (a short address left-padded, a repeated validator, transitions out of block
 * order, an empty validator list) comes back from readGenesis as a warning naming the field.
 */
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import { readEmptyBlockPeriod } from './empty-block-period.ts';

export class GenesisError extends Error {
  readonly field: string;
  constructor(field: string, problem: string) {
    super(`genesis: ${field} ${problem}`);
    this.name = 'GenesisError';
    this.field = field;
  }
}

/** A genesis and what is wrong with it that Besu nonetheless starts with (one line each, `genesis: <field> <problem>`). */
export interface GenesisReading {
  genesis: Genesis;
  warnings: string[];
}

/** Records a problem Besu tolerates: the field and what goes wrong because of it. */
type Warn = (field: string, problem: string) => void;

export function genesisWarning(field: string, problem: string): string {
  return `genesis: ${field} ${problem}`;
}

export type ValidatorSelectionMode = 'blockheader' | 'contract';
/** Which consensus section the config names; decides how the execution library is configured. */
export type GenesisConsensus = 'qbft' | 'ibft2' | 'clique' | 'ethash';

export interface QbftOptions {
  blockPeriodSeconds: number;
  epochLength: number;
  requestTimeoutSeconds: number;
  blockReward: bigint;
  miningBeneficiary?: Hex;
  validatorSelectionMode: ValidatorSelectionMode;
  validatorContractAddress?: Hex;
  /** `emptyblockperiodseconds` (or Besu's older `xemptyblockperiodseconds`), 0 = off. */
  emptyBlockPeriodSeconds: number;
  /** `xblockperiodmilliseconds` as written (0 = off, as in Besu). */
  blockPeriodMilliseconds?: number;
  messageQueueLimit: number;
  duplicateMessageLimit: number;
  futureMessagesLimit: number;
  futureMessagesMaxDistance: number;
  gossipedHistoryLimit: number;
  startBlock: number;
}

export interface QbftTransition {
  /** The `block` key. Besu compares it with the block timestamp instead when a time-based hardfork rules there (see fork-schedule.ts). */
  block: number;
  blockPeriodSeconds?: number;
  emptyBlockPeriodSeconds?: number;
  blockPeriodMilliseconds?: number;
  blockReward?: bigint;
  /** null = explicitly cleared with "" (falls back to the coinbase). */
  miningBeneficiary?: Hex | null;
  validatorSelectionMode?: ValidatorSelectionMode;
  validatorContractAddress?: Hex;
  validators?: Hex[];
}

export interface AllocAccount {
  balance: bigint;
  nonce: bigint;
  code?: Uint8Array;
  storage: Array<[Uint8Array, Uint8Array]>;
}

export interface Genesis {
  chainId: bigint;
  config: Record<string, unknown>;
  consensus: GenesisConsensus;
  qbft: QbftOptions;
  transitions: QbftTransition[];
  /** Configured block-number hardforks by @ethereumjs name (homestead, dao, tangerineWhistle, spuriousDragon, ..., grayGlacier, paris = mergeNetSplitBlock). */
  forkBlocks: Record<string, number>;
  /** Configured timestamp hardforks by @ethereumjs name (shanghai, cancun, prague, osaka, bpo1..bpo5). */
  forkTimestamps: Record<string, number>;
  /** `config.blobSchedule` by fork name: blobs per block and the blob base fee update fraction (EIP-7840). */
  blobSchedule: Record<string, BlobParams>;
  /** `config.depositContractAddress`: EIP-6110's deposit contract on a chain without a BFT section. */
  depositContractAddress?: Hex;
  timestamp: number;
  gasLimit: bigint;
  difficulty: bigint;
  extraData: Uint8Array;
  coinbase: Hex;
  mixHash: Uint8Array;
  nonce: Uint8Array;
  parentHash: Uint8Array;
  baseFeePerGas?: bigint;
  excessBlobGas?: bigint;
  blobGasUsed?: bigint;
  parentBeaconBlockRoot?: Uint8Array;
  number: 0;
  alloc: Map<Hex, AllocAccount>;
}

type Json = Record<string, unknown>;

export interface BlobParams {
  target: number;
  max: number;
  baseFeeUpdateFraction: number;
}

/** [@ethereumjs name, Besu key], in Besu's milestone order (MilestoneDefinitions). */
export const BLOCK_FORK_KEYS: ReadonlyArray<readonly [string, string]> = [
  ['homestead', 'homesteadblock'],
  ['tangerineWhistle', 'eip150block'],
  ['spuriousDragon', 'eip158block'],
  ['byzantium', 'byzantiumblock'],
  ['constantinople', 'constantinopleblock'],
  ['petersburg', 'petersburgblock'],
  ['istanbul', 'istanbulblock'],
  ['muirGlacier', 'muirglacierblock'],
  ['berlin', 'berlinblock'],
  ['london', 'londonblock'],
  ['arrowGlacier', 'arrowglacierblock'],
  ['grayGlacier', 'grayglacierblock'],
  ['paris', 'mergenetsplitblock'],
];
export const TIME_FORK_KEYS: ReadonlyArray<readonly [string, string]> = [
  ['shanghai', 'shanghaitime'],
  ['cancun', 'cancuntime'],
  ['prague', 'praguetime'],
  ['osaka', 'osakatime'],
  ['bpo1', 'bpo1time'],
  ['bpo2', 'bpo2time'],
  ['bpo3', 'bpo3time'],
  ['bpo4', 'bpo4time'],
  ['bpo5', 'bpo5time'],
];
/** Time forks Besu knows but this node cannot run. */
const UNSUPPORTED_TIME_KEYS = ['amsterdamtime', 'futureeipstime', 'experimentaleipstime'];

// ---------------------------------------------------------------- value parsers

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function normalizeKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalizeKeys);
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const [k, val] of Object.entries(v)) out[k.toLowerCase()] = normalizeKeys(val);
  return out;
}

/** Jackson's asText() of a scalar. */
function asText(v: unknown, field: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  throw new GenesisError(field, `must be a string or a number, got ${describe(v)}`);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v);
  if (typeof v === 'object') return 'an object';
  return String(v);
}

function toSafe(v: bigint, field: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new GenesisError(field, 'is too large');
  return Number(v);
}

/** A JSON number holding a non-negative integer (Besu's JsonUtil.getLong/getInt). */
function jsonInt(v: unknown, field: string, min = 0): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new GenesisError(field, `must be an integer number, got ${describe(v)}`);
  if (v < min) throw new GenesisError(field, min === 1 ? 'must be a positive integer' : `must be at least ${min}`);
  return v;
}

/** Besu's PositiveNumber.fromString(asText()): a number or a decimal string, > 0. */
function positiveInt(v: unknown, field: string): number {
  const text = typeof v === 'number' || typeof v === 'string' ? String(v).trim() : undefined;
  if (text === undefined || !/^\+?\d+$/.test(text) || BigInt(text) <= 0n || BigInt(text) > 0x7fffffffn) {
    throw new GenesisError(field, `must be a positive integer, got ${describe(v)}`);
  }
  return Number(text);
}

/** java.lang.Long.decode: [+-] then 0x/0X/# hex, leading 0 octal, else decimal. Negative rejected. */
function longDecode(v: unknown, field: string): bigint {
  const text = asText(v, field).trim();
  const m = /^(\+)?(0[xX][0-9a-fA-F]+|#[0-9a-fA-F]+|0[0-7]*|[1-9]\d*)$/.exec(text);
  if (!m) throw new GenesisError(field, `must be a non-negative integer (decimal or 0x hex), got ${describe(v)}`);
  const body = m[2];
  let n: bigint;
  if (body.startsWith('#')) n = BigInt('0x' + body.slice(1));
  else if (/^0[xX]/.test(body)) n = BigInt('0x' + body.slice(2));
  else if (body.length > 1 && body.startsWith('0')) n = BigInt('0o' + body.slice(1));
  else n = BigInt(body);
  if (n > 0x7fffffffffffffffn) throw new GenesisError(field, 'does not fit in a signed 64-bit integer');
  return n;
}

/** Besu's parseUnsignedLong: always hexadecimal, 0x optional (so nonce 10 means 16). */
function hexUnsignedLong(v: unknown, field: string): bigint {
  let text = asText(v, field).trim().toLowerCase();
  if (text.startsWith('0x')) text = text.slice(2);
  if (!/^[0-9a-f]{1,16}$/.test(text)) throw new GenesisError(field, `must be an unsigned 64-bit hex number, got ${describe(v)}`);
  return BigInt('0x' + text);
}

/** A big non-negative quantity: "0x…" hex or a decimal string (Besu's parseBalance / getBlockRewardWei); numbers accepted too. */
function quantity(v: unknown, field: string): bigint {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 0) throw new GenesisError(field, `must be a non-negative integer, got ${describe(v)}`);
    return BigInt(v);
  }
  if (typeof v !== 'string') throw new GenesisError(field, `must be a decimal or 0x-hex string, got ${describe(v)}`);
  const text = v.trim();
  if (/^0[xX]/.test(text)) {
    const digits = text.slice(2);
    if (!/^[0-9a-fA-F]*$/.test(digits)) throw new GenesisError(field, `is not valid hex: ${describe(v)}`);
    return digits.length === 0 ? 0n : BigInt('0x' + digits);
  }
  if (!/^\+?\d+$/.test(text)) {
    throw new GenesisError(field, text.startsWith('-') ? 'must not be negative' : `must be a decimal or 0x-hex number, got ${describe(v)}`);
  }
  return BigInt(text.replace('+', ''));
}

/** Tuweni UInt256.fromHexString (Besu's Difficulty.fromHexString): hex whether or not it starts with 0x. */
function hexQuantity(v: unknown, field: string): bigint {
  const digits = hexDigits(asText(v, field).trim(), field);
  if (digits.length > 64) throw new GenesisError(field, 'is longer than 32 bytes');
  return digits.length === 0 ? 0n : BigInt('0x' + digits);
}

function hexDigits(v: unknown, field: string): string {
  if (typeof v !== 'string') throw new GenesisError(field, `must be a hex string, got ${describe(v)}`);
  const digits = /^0[xX]/.test(v) ? v.slice(2) : v;
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw new GenesisError(field, `is not valid hex: ${describe(v)}`);
  return digits.toLowerCase();
}

function digitsToBytes(digits: string): Uint8Array {
  const out = new Uint8Array(digits.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(digits.substr(i * 2, 2), 16);
  return out;
}

/** Tuweni Bytes.fromHexString: 0x optional, even number of digits. */
function hexBytes(v: unknown, field: string): Uint8Array {
  const digits = hexDigits(v, field);
  if (digits.length % 2 !== 0) throw new GenesisError(field, 'has an odd number of hex digits');
  return digitsToBytes(digits);
}

/** Tuweni fromHexStringLenient(str, size): at most `size` bytes, zero-left-padded. */
function lenientFixed(v: unknown, field: string, size: number): Uint8Array {
  const digits = hexDigits(v, field);
  if (digits.length > size * 2) throw new GenesisError(field, `is longer than ${size} bytes`);
  return digitsToBytes(digits.padStart(size * 2, '0'));
}

/** Address.fromHexString (lenient: short values are left-padded). */
function lenientAddress(v: unknown, field: string): Hex {
  return bytesToHex(lenientFixed(v, field, 20));
}

/**
 * Address.fromHexString where Besu reads alloc keys (GenesisReader) and transition validators
 * (QbftBesuControllerBuilder.convertBftForks): a short value silently becomes another address.
 */
function paddedAddress(v: unknown, field: string, warn: Warn): Hex {
  const address = lenientAddress(v, field);
  const digits = hexDigits(v, field).length;
  if (digits < 40) warn(field, `is not a 20-byte address (${digits} hex digits, not 40): it is read as ${address}`);
  return address;
}

/** Address.fromHexStringStrict: exactly 20 bytes. */
function strictAddress(v: unknown, field: string): Hex {
  const digits = hexDigits(v, field);
  if (digits.length !== 40) throw new GenesisError(field, `must be a 20-byte address, got ${describe(v)}`);
  return `0x${digits}`;
}

function optionalObject(v: unknown, field: string): Json {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) throw new GenesisError(field, `must be an object, got ${describe(v)}`);
  return v;
}

// ---------------------------------------------------------------- sections

function parseChainId(config: Json): bigint {
  const v = config.chainid;
  if (v === undefined || v === null) return 1n; // BaseBftProtocolScheduleBuilder.DEFAULT_CHAIN_ID
  const text = asText(v, 'config.chainid').trim();
  if (!/^\d+$/.test(text) || BigInt(text) === 0n) throw new GenesisError('config.chainid', `must be a positive decimal integer, got ${describe(v)}`);
  return BigInt(text);
}

function parseForks(config: Json): { forkBlocks: Record<string, number>; forkTimestamps: Record<string, number> } {
  const forkBlocks: Record<string, number> = {};
  const forkTimestamps: Record<string, number> = {};
  let last = 0;
  let lastKey = '';
  const check = (key: string, value: number) => {
    if (value < last) throw new GenesisError(`config.${key}`, `is scheduled for ${value} but must be on or after ${lastKey} (${last})`);
    last = value;
    lastKey = key;
  };
  if (config.petersburgblock !== undefined && config.constantinoplefixblock !== undefined) {
    throw new GenesisError('config.constantinoplefixblock', 'cannot be given together with petersburgBlock');
  }
  for (const [name, key] of BLOCK_FORK_KEYS) {
    const k = key === 'petersburgblock' && config.constantinoplefixblock !== undefined ? 'constantinoplefixblock' : key;
    if (config[k] === undefined || config[k] === null) continue;
    const value = jsonInt(config[k], `config.${k}`);
    check(k, value);
    forkBlocks[name] = value;
  }
  for (const [name, key] of TIME_FORK_KEYS) {
    if (config[key] === undefined || config[key] === null) continue;
    const value = jsonInt(config[key], `config.${key}`);
    check(key, value);
    forkTimestamps[name] = value;
  }
  for (const key of UNSUPPORTED_TIME_KEYS) {
    if (config[key] !== undefined) throw new GenesisError(`config.${key}`, 'is not supported by this node');
  }
  if (config.daoforkblock !== undefined && config.daoforkblock !== null) {
    const dao = jsonInt(config.daoforkblock, 'config.daoforkblock');
    if (dao > 0) forkBlocks.dao = dao; // Besu ignores daoForkBlock <= 0
  }
  return { forkBlocks, forkTimestamps };
}

/** `config.blobSchedule` (Besu's and geth's spelling): per fork, target, max and baseFeeUpdateFraction, all required. */
function parseBlobSchedule(config: Json): Record<string, BlobParams> {
  const raw = config.blobschedule;
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) throw new GenesisError('config.blobSchedule', 'must be an object of forks');
  const forks = new Set(TIME_FORK_KEYS.map(([name]) => name).filter((name) => name !== 'shanghai'));
  const out: Record<string, BlobParams> = {};
  for (const [fork, entry] of Object.entries(raw)) {
    if (!forks.has(fork)) throw new GenesisError(`config.blobSchedule.${fork}`, `is not a fork with blobs (${[...forks].join(', ')})`);
    if (!isObject(entry)) throw new GenesisError(`config.blobSchedule.${fork}`, 'must be an object with target, max and baseFeeUpdateFraction');
    const field = (key: string, name: string): number => {
      if (entry[key] === undefined) throw new GenesisError(`config.blobSchedule.${fork}.${name}`, 'is missing');
      return jsonInt(entry[key], `config.blobSchedule.${fork}.${name}`);
    };
    const params = { target: field('target', 'target'), max: field('max', 'max'), baseFeeUpdateFraction: field('basefeeupdatefraction', 'baseFeeUpdateFraction') };
    if (params.target > params.max) throw new GenesisError(`config.blobSchedule.${fork}.target`, `(${params.target}) must not exceed max (${params.max})`);
    if (params.baseFeeUpdateFraction === 0) throw new GenesisError(`config.blobSchedule.${fork}.baseFeeUpdateFraction`, 'must be positive');
    out[fork] = params;
  }
  return out;
}

function consensusOf(config: Json): GenesisConsensus {
  const present = (['qbft', 'ibft2', 'clique'] as const).filter((k) => config[k] !== undefined);
  if (present.length > 1) throw new GenesisError(`config.${present[1]}`, `cannot be combined with config.${present[0]}`);
  return present[0] ?? 'ethash';
}

function parseQbftOptions(raw: unknown, warn: Warn): QbftOptions {
  const q = optionalObject(raw, 'config.qbft');
  const f = (k: string) => `config.qbft.${k}`;
  const intOr = (k: string, d: number, min = 0) => (q[k] === undefined ? d : jsonInt(q[k], f(k), min));
  const contract = q.validatorcontractaddress === undefined ? undefined : strictAddress(q.validatorcontractaddress, f('validatorcontractaddress'));
  const options: QbftOptions = {
    blockPeriodSeconds: q.blockperiodseconds === undefined ? 1 : positiveInt(q.blockperiodseconds, f('blockperiodseconds')),
    epochLength: intOr('epochlength', 30000, 1),
    requestTimeoutSeconds: intOr('requesttimeoutseconds', 1, 1),
    blockReward: q.blockreward === undefined ? 0n : quantity(q.blockreward, f('blockreward')),
    validatorSelectionMode: contract ? 'contract' : 'blockheader',
    emptyBlockPeriodSeconds: readEmptyBlockPeriod(q, 'config.qbft', (k) => intOr(k, 0), warn) ?? 0,
    messageQueueLimit: intOr('messagequeuelimit', 1000),
    duplicateMessageLimit: intOr('duplicatemessagelimit', 100),
    futureMessagesLimit: intOr('futuremessageslimit', 1000),
    futureMessagesMaxDistance: intOr('futuremessagesmaxdistance', 10),
    gossipedHistoryLimit: intOr('gossipedhistorylimit', 1000),
    startBlock: intOr('startblock', 0),
  };
  if (q.xblockperiodmilliseconds !== undefined) options.blockPeriodMilliseconds = jsonInt(q.xblockperiodmilliseconds, f('xblockperiodmilliseconds'));
  const beneficiary = parseBeneficiary(q.miningbeneficiary, f('miningbeneficiary'));
  if (beneficiary) options.miningBeneficiary = beneficiary;
  if (contract) options.validatorContractAddress = contract;
  return options;
}

/** Besu trims the value; blank means "none". */
function parseBeneficiary(v: unknown, field: string): Hex | null | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new GenesisError(field, `must be an address string, got ${describe(v)}`);
  const text = v.trim();
  return text === '' ? null : strictAddress(text, field);
}

function parseTransition(raw: unknown, i: number, warn: Warn): QbftTransition {
  const base = `config.transitions.qbft[${i}]`;
  if (!isObject(raw)) throw new GenesisError(base, `must be an object, got ${describe(raw)}`);
  const f = (k: string) => `${base}.${k}`;
  if (raw.block === undefined) throw new GenesisError(f('block'), 'is missing');
  const t: QbftTransition = { block: jsonInt(raw.block, f('block'), 1) };
  if (raw.blockperiodseconds !== undefined) t.blockPeriodSeconds = positiveInt(raw.blockperiodseconds, f('blockperiodseconds'));
  const emptyBlockPeriodSeconds = readEmptyBlockPeriod(raw, base, (k) => jsonInt(raw[k], f(k)), warn);
  if (emptyBlockPeriodSeconds !== undefined) t.emptyBlockPeriodSeconds = emptyBlockPeriodSeconds;
  if (raw.xblockperiodmilliseconds !== undefined) t.blockPeriodMilliseconds = jsonInt(raw.xblockperiodmilliseconds, f('xblockperiodmilliseconds'));
  if (raw.blockreward !== undefined) t.blockReward = quantity(raw.blockreward, f('blockreward'));
  if (raw.miningbeneficiary !== undefined) t.miningBeneficiary = parseBeneficiary(raw.miningbeneficiary, f('miningbeneficiary')) ?? null;
  if (raw.validatorcontractaddress !== undefined) t.validatorContractAddress = strictAddress(raw.validatorcontractaddress, f('validatorcontractaddress'));
  if (raw.validators !== undefined) {
    if (!Array.isArray(raw.validators)) throw new GenesisError(f('validators'), 'must be an array of addresses');
    t.validators = raw.validators.map((v, j) => {
      if (typeof v !== 'string') throw new GenesisError(`${f('validators')}[${j}]`, `must be an address string, got ${describe(v)}`);
      return paddedAddress(v, `${f('validators')}[${j}]`, warn);
    });
  }
  if (raw.validatorselectionmode !== undefined) {
    const mode = typeof raw.validatorselectionmode === 'string' ? raw.validatorselectionmode.toLowerCase() : undefined;
    if (mode !== 'blockheader' && mode !== 'contract') {
      throw new GenesisError(f('validatorselectionmode'), `must be "blockheader" or "contract", got ${describe(raw.validatorselectionmode)}`);
    }
    t.validatorSelectionMode = mode;
    // QbftForksSchedulesFactory.createQbftConfigOptions
    if (mode === 'blockheader' && (t.validators === undefined || t.validators.length === 0)) {
      throw new GenesisError(f('validators'), 'must list at least one validator when switching to blockheader mode');
    }
    if (mode === 'contract' && t.validatorContractAddress === undefined) {
      throw new GenesisError(f('validatorcontractaddress'), 'is required when switching to contract mode');
    }
  }
  return t;
}

/** Besu's VoteTally keeps validators in a set: a repeated address counts once. */
function warnDuplicates(addresses: readonly Hex[], field: string, warn: Warn): void {
  const repeated = new Set(addresses.filter((a, i) => addresses.indexOf(a) !== i));
  for (const address of repeated) warn(field, `lists ${address} more than once: it counts as one validator`);
}

function parseTransitions(config: Json, genesisMode: ValidatorSelectionMode, warn: Warn): QbftTransition[] {
  const transitions = optionalObject(config.transitions, 'config.transitions');
  const list = transitions.qbft;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new GenesisError('config.transitions.qbft', 'must be an array');
  const parsed = list.map((raw, i) => parseTransition(raw, i, warn));
  // ForksScheduleFactory.create: blocks > 0 (checked above), distinct, applied in block order.
  const seen = new Map<number, number>();
  parsed.forEach((t, i) => {
    const prev = seen.get(t.block);
    if (prev !== undefined) throw new GenesisError(`config.transitions.qbft[${i}].block`, `duplicates the block of transition ${prev} (${t.block})`);
    seen.set(t.block, i);
    if (i > 0 && t.block < parsed[i - 1].block)
      warn(`config.transitions.qbft[${i}].block`, `(${t.block}) is below the block of transition ${i - 1} (${parsed[i - 1].block}): transitions apply in block order, not in the order written`);
  });
  const order = parsed.map((t, i) => ({ t, i })).sort((a, b) => a.t.block - b.t.block);
  warnValidatorLists(order, genesisMode, warn);
  return order.map(({ t }) => t);
}

/**
 * A transition's `validators` replace the whole set in block-header mode (Besu's
 * ForkingVoteTallyCache builds a VoteTally from them); in contract mode they are not read.
 */
function warnValidatorLists(order: ReadonlyArray<{ t: QbftTransition; i: number }>, genesisMode: ValidatorSelectionMode, warn: Warn): void {
  let mode = genesisMode;
  for (const { t, i } of order) {
    mode = t.validatorSelectionMode ?? mode;
    if (mode !== 'blockheader' || t.validators === undefined) continue;
    const field = `config.transitions.qbft[${i}].validators`;
    if (t.validators.length === 0) warn(field, `is empty: block ${t.block} has no validator to propose it, so the chain stops at block ${t.block - 1}`);
    warnDuplicates(t.validators, field, warn);
  }
}

function parseAlloc(raw: unknown, warn: Warn): Map<Hex, AllocAccount> {
  const alloc = new Map<Hex, AllocAccount>();
  const entries = Object.entries(optionalObject(raw, 'alloc'));
  for (const [key, value] of entries) {
    const base = `alloc.${key}`;
    const address = paddedAddress(key, base, warn);
    if (alloc.has(address)) throw new GenesisError(base, 'appears twice');
    if (!isObject(value)) throw new GenesisError(base, `must be an object, got ${describe(value)}`);
    const account: AllocAccount = {
      balance: value.balance === undefined ? 0n : quantity(value.balance, `${base}.balance`),
      nonce: value.nonce === undefined ? 0n : hexUnsignedLong(value.nonce, `${base}.nonce`),
      storage: [],
    };
    if (value.code !== undefined && value.code !== null) {
      const code = hexBytes(value.code, `${base}.code`);
      if (code.length > 0) account.code = code;
    }
    const storage = optionalObject(value.storage, `${base}.storage`);
    for (const [slot, word] of Object.entries(storage)) {
      const slotBytes = lenientFixed(slot, `${base}.storage.${slot}`, 32);
      const wordBytes = lenientFixed(typeof word === 'string' ? word : asText(word, `${base}.storage.${slot}`), `${base}.storage.${slot}`, 32);
      account.storage.push([slotBytes, wordBytes]);
    }
    alloc.set(address, account);
  }
  return alloc;
}

function parseHeaderFields(root: Json) {
  const gasLimitRaw = root.gaslimit ?? root.gastarget;
  if (gasLimitRaw === undefined) throw new GenesisError('gasLimit', 'is missing');
  if (root.difficulty === undefined) throw new GenesisError('difficulty', 'is missing');
  const fields = {
    timestamp: toSafe(root.timestamp === undefined ? 0n : longDecode(root.timestamp, 'timestamp'), 'timestamp'),
    gasLimit: longDecode(gasLimitRaw, root.gaslimit !== undefined ? 'gasLimit' : 'gasTarget'),
    difficulty: hexQuantity(root.difficulty, 'difficulty'),
    extraData: root.extradata === undefined ? new Uint8Array(0) : hexBytes(root.extradata, 'extraData'),
    coinbase: root.coinbase === undefined ? (`0x${'0'.repeat(40)}` as Hex) : lenientAddress(root.coinbase, 'coinbase'),
    mixHash: root.mixhash === undefined ? new Uint8Array(32) : lenientFixed(root.mixhash, 'mixHash', 32),
    nonce: bigintTo8Bytes(root.nonce === undefined ? 0n : hexUnsignedLong(root.nonce, 'nonce')),
    parentHash: root.parenthash === undefined ? new Uint8Array(32) : lenientFixed(root.parenthash, 'parentHash', 32),
  };
  const optional: Partial<Pick<Genesis, 'baseFeePerGas' | 'excessBlobGas' | 'blobGasUsed' | 'parentBeaconBlockRoot'>> = {};
  if (root.basefeepergas !== undefined && root.basefeepergas !== null) optional.baseFeePerGas = longDecode(root.basefeepergas, 'baseFeePerGas');
  if (root.excessblobgas !== undefined && root.excessblobgas !== null) optional.excessBlobGas = hexUnsignedLong(root.excessblobgas, 'excessBlobGas');
  if (root.blobgasused !== undefined && root.blobgasused !== null) optional.blobGasUsed = hexUnsignedLong(root.blobgasused, 'blobGasUsed');
  if (root.parentbeaconblockroot !== undefined && root.parentbeaconblockroot !== null) optional.parentBeaconBlockRoot = hexFixed32(root.parentbeaconblockroot, 'parentBeaconBlockRoot');
  return { ...fields, ...optional };
}

function hexFixed32(v: unknown, field: string): Uint8Array {
  const bytes = hexBytes(v, field);
  if (bytes.length !== 32) throw new GenesisError(field, 'must be 32 bytes');
  return bytes;
}

function bigintTo8Bytes(v: bigint): Uint8Array {
  const out = new Uint8Array(8);
  for (let i = 7; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

// ---------------------------------------------------------------- entry points

export function parseGenesis(input: string | unknown): Genesis {
  return readGenesis(input).genesis;
}

/** parseGenesis, with the warnings for what Besu reads differently from what was probably meant. */
export function readGenesis(input: string | unknown): GenesisReading {
  const warnings: string[] = [];
  const warn: Warn = (field, problem) => warnings.push(genesisWarning(field, problem));
  let json: unknown = input;
  if (typeof input === 'string') {
    try {
      json = JSON.parse(input);
    } catch (err) {
      throw new GenesisError('(file)', `is not valid JSON: ${(err as Error).message}`);
    }
  }
  if (!isObject(json)) throw new GenesisError('(root)', 'must be a JSON object');
  const root = normalizeKeys(json) as Json;
  const config = optionalObject(root.config, 'config');
  const genesis: Genesis = {
    ...parseChainRules(config, warn),
    ...parseHeaderFields(root),
    number: 0,
    alloc: parseAlloc(root.alloc, warn),
  };
  return { genesis, warnings };
}

/**
 * The same genesis under another `config` object (as stored by an earlier start): the chain rules
 * are read again from it; header fields and alloc stay, since they fix the genesis block.
 */
export function withConfig(genesis: Genesis, rawConfig: unknown): Genesis {
  const config = optionalObject((normalizeKeys({ config: rawConfig }) as Json).config, 'config');
  return { ...genesis, ...parseChainRules(config, () => undefined) };
}

/** Everything the `config` object decides. */
function parseChainRules(config: Json, warn: Warn) {
  const { forkBlocks, forkTimestamps } = parseForks(config);
  const raw = config.depositcontractaddress;
  const chainId = parseChainId(config);
  const consensus = consensusOf(config);
  const qbft = parseQbftOptions(config.qbft, warn);
  return {
    chainId,
    config,
    consensus,
    qbft,
    transitions: parseTransitions(config, qbft.validatorSelectionMode, warn),
    forkBlocks,
    forkTimestamps,
    blobSchedule: parseBlobSchedule(config),
    depositContractAddress: raw === undefined || raw === null ? undefined : lenientAddress(raw, 'config.depositContractAddress'),
  };
}


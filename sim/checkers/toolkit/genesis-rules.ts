/**
 * What the checkers need from a genesis file, read straight from its JSON (keys case-insensitive,
 * as Besu reads them): the genesis validators (extraData), the epoch length, the round timeout,
 * the longest block period in force at any height, and per block the validator selection mode,
 * validator overrides (`transitions.qbft[].validators`, by block number) and, in contract mode,
 * the validators when the contract is the simulator's static one (its code ends with the
 * ABI-encoded address[] it returns). A contract whose answer cannot be read off its code leaves
 * the validators of those blocks unknown, and the checks that need them unjudged.
 *
 * Besu compares transition blocks with timestamps when a time-based hardfork rules at that value
 * (Besu PR #9785). The header's period rule follows it here (parentGapRuleSecondsAt, at the block's
 * own number and timestamp); the rest does not: with any time-based fork, the selection mode from
 * the first mode-changing transition on is unknown.
 */
import { sortedAddresses } from './bft-math.ts';
import { fromHex, toHex, type Hex } from './crypto.ts';
import { decodeQbftExtraData } from './block.ts';

export type SelectionMode = { kind: 'blockheader' } | { kind: 'contract'; validators: Hex[] | undefined } | { kind: 'unknown' };

export interface GenesisRules {
  epochLength: number;
  requestTimeoutSeconds: number;
  /** The longest block period (or empty-block period) any block may wait, in ms. */
  longestBlockPeriodMs: number;
  /** The validators listed in the genesis extraData (empty in contract mode). */
  genesisValidators: Hex[];
  /** The genesis block's coinbase: the "previous proposer" for block 1. */
  genesisCoinbase: Hex;
  /** The genesis block's timestamp in seconds (0 when absent). */
  genesisTimestampSeconds: number;
  modeAt(blockNumber: number): SelectionMode;
  overrideAt(blockNumber: number): Hex[] | undefined;
  /**
   * The minimum gap in seconds between a block's timestamp and its parent's (blockperiodseconds in
   * force at that block); undefined when it cannot be told without more (timestamp transitions,
   * millisecond periods).
   */
  minParentGapSecondsAt(blockNumber: number): number | undefined;
  /**
   * The header rule on a block's timestamp: the smallest gap in seconds to its parent under the
   * period in force at the block's own number and timestamp (0: no rule, for a period under 1 s).
   */
  parentGapRuleSecondsAt(blockNumber: number, timestampSeconds: number): number;
}

/** A period in force from a transition (or the genesis) on; `byTime` when its `block` is a timestamp. */
interface PeriodFork {
  from: number;
  byTime: boolean;
  seconds: number;
  /** xblockperiodmilliseconds when > 0 (it replaces blockperiodseconds). */
  ms: number | undefined;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function field(obj: Json | undefined, name: string): unknown {
  if (!obj) return undefined;
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : obj[key];
}

function integer(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^(0x[0-9a-fA-F]+|\d+)$/.test(v.trim())) return Number(BigInt(v.trim()));
  return undefined;
}

function addressOf(v: unknown): Hex | undefined {
  if (typeof v !== 'string') return undefined;
  const body = v.trim().replace(/^0x/i, '');
  return /^[0-9a-fA-F]{40}$/.test(body) ? (`0x${body.toLowerCase()}` as Hex) : undefined;
}

/** The address[] a static validator contract returns, read from its code, or undefined. */
export function staticContractValidators(code: Uint8Array): Hex[] | undefined {
  // PUSH2 size, DUP1, PUSH2 13, PUSH1 0, CODECOPY, PUSH1 0, RETURN, then the return data.
  const prefix = [0x61, -1, -1, 0x80, 0x61, 0x00, 0x0d, 0x60, 0x00, 0x39, 0x60, 0x00, 0xf3];
  if (code.length < prefix.length || prefix.some((b, i) => b >= 0 && code[i] !== b)) return undefined;
  const size = code[1]! * 256 + code[2]!;
  const data = code.subarray(13, 13 + size);
  if (data.length !== size || size < 64 || size % 32 !== 0) return undefined;
  const word = (i: number) => data.subarray(32 * i, 32 * i + 32);
  const small = (w: Uint8Array) => (w.subarray(0, 28).every((b) => b === 0) ? ((w[28]! << 24) | (w[29]! << 16) | (w[30]! << 8) | w[31]!) >>> 0 : -1);
  const offset = small(word(0));
  if (offset !== 32) return undefined;
  const length = small(word(1));
  if (length < 0 || 64 + 32 * length !== size) return undefined;
  const out: Hex[] = [];
  for (let i = 0; i < length; i++) {
    const w = word(2 + i);
    if (!w.subarray(0, 12).every((b) => b === 0)) return undefined;
    out.push(toHex(w.subarray(12)));
  }
  return sortedAddresses(out);
}

function contractValidators(genesis: Json, contract: Hex): Hex[] | undefined {
  const alloc = field(genesis, 'alloc');
  if (!isObject(alloc)) return undefined;
  const key = Object.keys(alloc).find((k) => addressOf(k) === contract);
  const account = key === undefined ? undefined : alloc[key];
  const code = isObject(account) ? field(account, 'code') : undefined;
  if (typeof code !== 'string') return undefined;
  try {
    return staticContractValidators(fromHex(code));
  } catch {
    return undefined;
  }
}

interface ModeSpan {
  fromBlock: number;
  mode: SelectionMode;
}

export function readGenesisRules(genesis: Json): GenesisRules {
  const config = field(genesis, 'config');
  const configObj = isObject(config) ? config : undefined;
  const qbftRaw = field(configObj, 'qbft');
  const qbft = isObject(qbftRaw) ? qbftRaw : undefined;
  const periodMsOf = (o: Json | undefined, fallbackMs: number): number => {
    const ms = integer(field(o, 'xblockperiodmilliseconds'));
    const s = integer(field(o, 'blockperiodseconds'));
    // Besu 26.5 to 26.8 read both names, the newer first.
    const empty = integer(field(o, 'emptyblockperiodseconds')) ?? integer(field(o, 'xemptyblockperiodseconds')) ?? 0;
    const period = ms !== undefined && ms > 0 ? ms : s !== undefined ? s * 1000 : fallbackMs;
    return Math.max(period, empty * 1000);
  };
  let longestBlockPeriodMs = periodMsOf(qbft, 1000);

  const extra = field(genesis, 'extradata');
  let genesisValidators: Hex[] = [];
  if (typeof extra === 'string' && extra.replace(/^0x/i, '').length > 0) {
    try {
      genesisValidators = sortedAddresses(decodeQbftExtraData(fromHex(extra)).validators);
    } catch {
      genesisValidators = [];
    }
  }

  const firstContract = addressOf(field(qbft, 'validatorcontractaddress'));
  const spans: ModeSpan[] = [
    { fromBlock: 0, mode: firstContract ? { kind: 'contract', validators: contractValidators(genesis, firstContract) } : { kind: 'blockheader' } },
  ];
  const overrides = new Map<number, Hex[]>();
  const transitionsRaw = field(isObject(field(configObj, 'transitions')) ? (field(configObj, 'transitions') as Json) : undefined, 'qbft');
  const transitions = (Array.isArray(transitionsRaw) ? transitionsRaw.filter(isObject) : [])
    .map((t) => ({ t, block: integer(field(t, 'block')) }))
    .filter((x): x is { t: Json; block: number } => x.block !== undefined)
    .sort((a, b) => a.block - b.block);
  const timeForks = configObj !== undefined && Object.keys(configObj).some((k) => /time$/i.test(k) && integer(configObj[k]) !== undefined);
  const periodSpans: Array<{ fromBlock: number; seconds: number | undefined }> = [{ fromBlock: 0, seconds: gapSecondsOf(qbft, 1) }];
  const periodForks: PeriodFork[] = [periodForkOf(qbft, { from: 0, byTime: false, seconds: 1, ms: undefined })];
  const byTime = timeTypedAt(configObj);
  let current = spans[0]!.mode;
  for (const { t, block } of transitions) {
    periodForks.push(periodForkOf(t, { ...periodForks[periodForks.length - 1]!, from: block, byTime: byTime(block) }));
    const last = periodSpans[periodSpans.length - 1]!.seconds;
    if (field(t, 'blockperiodseconds') !== undefined || field(t, 'xblockperiodmilliseconds') !== undefined) periodSpans.push({ fromBlock: block, seconds: timeForks ? undefined : gapSecondsOf(t, last) });
    longestBlockPeriodMs = Math.max(longestBlockPeriodMs, periodMsOf(t, 0));
    const list = field(t, 'validators');
    if (Array.isArray(list)) {
      const addresses = list.map(addressOf);
      if (addresses.every((a): a is Hex => a !== undefined)) overrides.set(block, sortedAddresses(addresses));
    }
    const modeName = field(t, 'validatorselectionmode');
    const mode = typeof modeName === 'string' ? modeName.toLowerCase() : undefined;
    const contract = addressOf(field(t, 'validatorcontractaddress'));
    let next: SelectionMode | undefined;
    if (mode === 'blockheader') next = { kind: 'blockheader' };
    else if (mode === 'contract' && contract) next = { kind: 'contract', validators: contractValidators(genesis, contract) };
    if (next === undefined) continue;
    current = timeForks ? { kind: 'unknown' } : next;
    spans.push({ fromBlock: block, mode: current });
  }

  const epoch = integer(field(qbft, 'epochlength'));
  const timeout = integer(field(qbft, 'requesttimeoutseconds'));
  return {
    epochLength: epoch !== undefined && epoch > 0 ? epoch : 30_000,
    requestTimeoutSeconds: timeout !== undefined && timeout > 0 ? timeout : 1,
    longestBlockPeriodMs,
    genesisValidators,
    genesisCoinbase: addressOf(field(genesis, 'coinbase')) ?? (`0x${'0'.repeat(40)}` as Hex),
    genesisTimestampSeconds: integer(field(genesis, 'timestamp')) ?? 0,
    modeAt(blockNumber) {
      let found = spans[0]!;
      for (const s of spans) if (s.fromBlock <= blockNumber) found = s;
      return found.mode;
    },
    overrideAt: (blockNumber) => overrides.get(blockNumber),
    minParentGapSecondsAt(blockNumber) {
      let found = periodSpans[0]!;
      for (const s of periodSpans) if (s.fromBlock <= blockNumber) found = s;
      return found.seconds;
    },
    parentGapRuleSecondsAt(blockNumber, timestampSeconds) {
      // Besu's ForksSchedule.getFork: the latest fork whose value (number, or timestamp when time-typed) is reached.
      const fork = [...periodForks].reverse().find((f) => (f.byTime ? timestampSeconds : blockNumber) >= f.from) ?? periodForks[0]!;
      const ms = fork.ms ?? fork.seconds * 1000;
      return ms >= 1000 ? Math.floor(ms / 1000) : 0;
    },
  };
}

/** The period a config or transition sets, inheriting what it does not name. */
function periodForkOf(o: Json | undefined, inherited: PeriodFork): PeriodFork {
  const seconds = integer(field(o, 'blockperiodseconds'));
  const ms = integer(field(o, 'xblockperiodmilliseconds'));
  return { ...inherited, seconds: seconds ?? inherited.seconds, ms: ms === undefined ? inherited.ms : ms > 0 ? ms : undefined };
}

/**
 * Whether a transition's `block` is a timestamp: the hardfork with the greatest activation value at
 * or below it (a time fork on a tie) is a time fork (Besu PR #9785; the DAO fork is no milestone).
 */
function timeTypedAt(config: Json | undefined): (value: number) => boolean {
  const forks = Object.keys(config ?? {}).flatMap((k) => {
    const at = integer(config![k]);
    if (at === undefined || k.toLowerCase() === 'daoforkblock') return [];
    if (/block$/i.test(k)) return [{ at, time: false }];
    return /time$/i.test(k) ? [{ at, time: true }] : [];
  });
  return (value) => {
    let best = { at: 0, time: false };
    for (const f of forks) if (f.at <= value && (f.at > best.at || (f.at === best.at && f.time))) best = f;
    return best.time;
  };
}

/** blockperiodseconds of a config or transition; undefined when a millisecond period is set. */
function gapSecondsOf(o: Json | undefined, fallback: number | undefined): number | undefined {
  const ms = integer(field(o, 'xblockperiodmilliseconds'));
  if (ms !== undefined && ms > 0) return undefined;
  return integer(field(o, 'blockperiodseconds')) ?? fallback;
}

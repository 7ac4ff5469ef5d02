/**
 * Builders for the checkers' tests: QBFT blocks and messages encoded and signed from scratch (with
 * the checkers' own RLP writer and @noble/curves), and a synthetic run that feeds hand-made trace
 * lines and wire messages through the same observation feed a World run uses. Test-only.
 */
import { buildSimGenesis } from '../genesis-builder.ts';
import { validatorKeys } from '../keys.ts';
import type { TraceEvent } from '../trace-events.ts';
import { ObservationFeed } from './observation-feed.ts';
import { CheckerSuite } from './suite.ts';
import { proposerFor } from './toolkit/bft-math.ts';
import { decodeBlock, proposalDigest, commitSealHash } from './toolkit/block.ts';
import { fromHex, keccak, signHash, type Hex } from './toolkit/crypto.ts';
import { QbftCode } from './toolkit/qbft-messages.ts';
import { encodeList, encodeScalar, encodeString } from './toolkit/rlp.ts';

export interface Key {
  name: string;
  privateKey: Uint8Array;
  address: Hex;
}

/** v0..v(n-1), ascending by address (v0 lowest), as the simulator names them. */
export function keys(n: number): Key[] {
  return validatorKeys(n).map((k, i) => ({ name: `v${i}`, privateKey: k.privateKey, address: k.address as Hex }));
}

export const ZERO_ADDRESS = `0x${'0'.repeat(40)}` as Hex;
export const GENESIS_TIME_S = 1_700_000_000;

export interface BlockSpec {
  number: number;
  parentHash: Hex;
  coinbase: Hex;
  validators: Hex[];
  round: number;
  vote?: { recipient: Hex; add: boolean };
  /** Distinguishes otherwise equal blocks (goes in the vanity). */
  tag?: number;
  timestamp?: number;
  /** Vanity length (32 unless a test plants another). */
  vanityBytes?: number;
}

function extraData(spec: BlockSpec, seals: Uint8Array[]): Uint8Array {
  const vanity = new Uint8Array(spec.vanityBytes ?? 32);
  if (vanity.length > 0) vanity[vanity.length - 1] = spec.tag ?? 0;
  const vote = spec.vote ? encodeList([encodeString(fromHex(spec.vote.recipient)), encodeString(spec.vote.add ? Uint8Array.of(0xff) : new Uint8Array(0))]) : encodeList([]);
  return encodeList([
    encodeString(vanity),
    encodeList(spec.validators.map((v) => encodeString(fromHex(v)))),
    vote,
    encodeScalar(spec.round),
    encodeList(seals.map((s) => encodeString(s))),
  ]);
}

function blockRlp(spec: BlockSpec, seals: Uint8Array[]): Uint8Array {
  const word = (b: number) => encodeString(new Uint8Array(32).fill(b));
  const header = [
    encodeString(fromHex(spec.parentHash)),
    word(0x1d),
    encodeString(fromHex(spec.coinbase)),
    word(0x51),
    word(0x56),
    word(0x56),
    encodeString(new Uint8Array(256)),
    encodeScalar(1),
    encodeScalar(spec.number),
    encodeScalar(30_000_000),
    encodeScalar(0),
    encodeScalar(spec.timestamp ?? GENESIS_TIME_S + spec.number),
    encodeString(extraData(spec, seals)),
    word(0x63),
    encodeString(new Uint8Array(8)),
    encodeScalar(7),
  ];
  return encodeList([encodeList(header), encodeList([]), encodeList([])]);
}

/** The block as proposed: its round, no seals. */
export function proposedBlock(spec: BlockSpec): Uint8Array {
  return blockRlp(spec, []);
}

/** The block sealed by `signers` over its committed-seal hash for `sealRound` (default: its round). */
export function sealedBlock(spec: BlockSpec, signers: Key[], sealRound = spec.round): Uint8Array {
  const hash = fromHex(commitSealHash(decodeBlock(proposedBlock(spec)), sealRound));
  return blockRlp(spec, signers.map((k) => signHash(hash, k.privateKey)));
}

export function digestOf(rlp: Uint8Array): Hex {
  return proposalDigest(decodeBlock(rlp));
}

export function hashOf(rlp: Uint8Array): Hex {
  return decodeBlock(rlp).onchainHash;
}

function signed(code: number, payloadItems: Uint8Array[], key: Key): Uint8Array {
  const payload = encodeList(payloadItems);
  const signature = signHash(keccak(encodeList([encodeScalar(code), payload])), key.privateKey);
  return encodeList([payload, encodeString(signature)]);
}

export function prepareMsg(key: Key, height: number, round: number, digest: Hex): Uint8Array {
  return signed(QbftCode.PREPARE, [encodeScalar(height), encodeScalar(round), encodeString(fromHex(digest))], key);
}

/** A COMMIT for a proposed block, its seal over the block's committed-seal hash for `round`. */
export function commitMsg(key: Key, height: number, round: number, proposed: Uint8Array): Uint8Array {
  const seal = signHash(fromHex(commitSealHash(decodeBlock(proposed), round)), key.privateKey);
  return signed(QbftCode.COMMIT, [encodeScalar(height), encodeScalar(round), encodeString(fromHex(digestOf(proposed))), encodeString(seal)], key);
}

export type Layout = 'besu26' | 'legacy';

export function roundChangeMsg(
  key: Key,
  height: number,
  round: number,
  prepared?: { round: number; block: Uint8Array; prepares: Uint8Array[] },
  layout: Layout = 'besu26',
): Uint8Array {
  const metadata = prepared ? encodeList([encodeScalar(prepared.round), encodeString(fromHex(digestOf(prepared.block)))]) : encodeList([]);
  const items = [signed(QbftCode.ROUND_CHANGE, [encodeScalar(height), encodeScalar(round), metadata], key), prepared ? prepared.block : encodeList([])];
  if (layout === 'besu26') items.push(encodeString(new Uint8Array(0)));
  items.push(encodeList(prepared ? prepared.prepares : []));
  return encodeList(items);
}

export function proposalMsg(key: Key, height: number, round: number, block: Uint8Array, justification: { roundChanges?: Uint8Array[]; prepares?: Uint8Array[] } = {}, layout: Layout = 'besu26'): Uint8Array {
  const payload = [encodeScalar(height), encodeScalar(round), block];
  if (layout === 'besu26') payload.push(encodeString(new Uint8Array(0)));
  // Piggy-backed round changes are their signed parts only.
  const rcSigned = (justification.roundChanges ?? []).map((rc) => rawFirstItem(rc));
  return encodeList([signed(QbftCode.PROPOSAL, payload, key), encodeList([encodeList(rcSigned), encodeList(justification.prepares ?? [])])]);
}

/** The encoding of the first item of an encoded list. */
function rawFirstItem(list: Uint8Array): Uint8Array {
  const lenOfLen = list[0]! > 0xf7 ? list[0]! - 0xf7 : 0;
  const start = 1 + lenOfLen;
  const b = list[start]!;
  let total: number;
  if (b < 0xc0) throw new Error('first item is not a list');
  if (b <= 0xf7) total = 1 + (b - 0xc0);
  else {
    const n = b - 0xf7;
    let len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + list[start + 1 + i]!;
    total = 1 + n + len;
  }
  return list.subarray(start, start + total);
}

export interface SyntheticOptions {
  validators?: number;
  observers?: number;
  /** Node names flagged faulty in the run-started line. */
  faulty?: string[];
  requestTimeoutSeconds?: number;
  latencyAllowanceMs?: number;
  earlyRoundChange?: boolean;
  /** Changes the genesis JSON (qbft options, transitions, time forks) before the checkers read it. */
  editGenesis?: (genesis: Record<string, unknown>) => void;
}

/** A run made of hand-fed observations, judged by a real CheckerSuite. */
export class SyntheticRun {
  readonly keys: Key[];
  readonly suite: CheckerSuite;
  readonly genesis: Record<string, unknown>;
  private readonly feed: ObservationFeed;
  private readonly blocks = new Map<Hex, Uint8Array>();

  constructor(opts: SyntheticOptions = {}) {
    this.keys = keys(opts.validators ?? 4);
    this.genesis = buildSimGenesis({ validators: this.keys.map((k) => k.address), startTimeSeconds: GENESIS_TIME_S, requestTimeoutSeconds: opts.requestTimeoutSeconds ?? 2 });
    opts.editGenesis?.(this.genesis);
    this.suite = new CheckerSuite({ genesis: this.genesis, latencyAllowanceMs: opts.latencyAllowanceMs ?? 1_000 });
    this.feed = new ObservationFeed((o) => this.suite.observe(o), { originMs: 0, blockRlp: (_node, hash) => this.blocks.get(hash) });
    const faulty = new Set(opts.faulty ?? []);
    const observers = Array.from({ length: opts.observers ?? 0 }, (_, i) => ({ name: `o${i}`, address: `0x${(i + 1).toString(16).padStart(40, 'e')}` as Hex, role: 'observer' as const }));
    const nodes = [...this.keys.map((k) => ({ name: k.name, address: k.address, role: 'validator' as const })), ...observers].map((n) => ({ ...n, faulty: faulty.has(n.name) }));
    this.line(0, null, { kind: 'run-started', scenario: 'synthetic', seed: 1, validators: this.keys.length, nodes, blockPeriodSeconds: 1, requestTimeoutSeconds: opts.requestTimeoutSeconds ?? 2, earlyRoundChange: opts.earlyRoundChange === true, durationMs: 60_000 });
    for (const n of nodes) this.line(0, n.name, { kind: 'node-started', wiped: false });
  }

  key(name: string): Key {
    const k = this.keys.find((x) => x.name === name);
    if (!k) throw new Error(`no key ${name}`);
    return k;
  }

  line(atMs: number, node: string | null, event: TraceEvent): void {
    this.feed.traceLine({ t: atMs, node, ...event });
  }

  send(atMs: number, from: string, code: number, data: Uint8Array): void {
    this.feed.wireMessage(from, 'istanbul', code, data, atMs);
  }

  /** A block-imported line for `rlp`; `reportedHash` plants a node that names it by another hash. */
  importBlock(atMs: number, node: string, rlp: Uint8Array, status: 'head' | 'side' = 'head', reportedHash?: Hex): void {
    const block = decodeBlock(rlp);
    const hash = reportedHash ?? block.onchainHash;
    this.blocks.set(hash, rlp);
    const round = 'error' in block.extra ? 0 : block.extra.round;
    this.line(atMs, node, { kind: 'block-imported', number: block.number, hash, round, txs: 0, status });
  }

  healed(atMs: number): void {
    this.feed.marker({ type: 'faults-healed', atMs });
  }

  /** The validators' addresses, ascending. */
  addresses(): Hex[] {
    return this.keys.map((k) => k.address);
  }

  /** A chain of `count` valid blocks from block 1: round-0 proposers by the rotation, sealed by the first quorum of validators. */
  chain(count: number, sealers = 3, timestampOf: (n: number) => number = (n) => GENESIS_TIME_S + n): Array<{ spec: BlockSpec; rlp: Uint8Array }> {
    const out: Array<{ spec: BlockSpec; rlp: Uint8Array }> = [];
    let parentHash = `0x${'0'.repeat(64)}` as Hex;
    let parentCoinbase = ZERO_ADDRESS;
    for (let n = 1; n <= count; n++) {
      const spec: BlockSpec = { number: n, parentHash, coinbase: proposerFor(this.addresses(), parentCoinbase, 0), validators: this.addresses(), round: 0, timestamp: timestampOf(n) };
      const rlp = sealedBlock(spec, this.keys.slice(0, sealers));
      out.push({ spec, rlp });
      parentHash = hashOf(rlp);
      parentCoinbase = spec.coinbase;
    }
    return out;
  }
}

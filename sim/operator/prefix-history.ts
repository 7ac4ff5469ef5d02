/**
 * The blocks before the live part of a rehearsal at a real height, kept compactly: the history
 * nodes' stores hold below their own blocks (node/chain/chain.ts, ChainHistory). prefix-builder.ts
 * makes it, prefix-validation.ts checks it under each genesis.
 *
 * Each block is a template (the raw header and body of a block the node's own block creator built,
 * its extraData with round 0 and no seals) with four fields of its own: parent hash, coinbase,
 * number and timestamp. Kept per block: its on-chain hash, its timestamp, its template and its
 * proposer (an index in the template's validators): about 41 bytes a block. Its commit seals (a
 * quorum of the validators after its parent, in address order, signing its hash with the
 * stand-ins' keys) are made when the block is first read, the same every time; QBFT's on-chain
 * hash leaves them out, so the chain of hashes does not wait for them.
 */
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { blockFromValues } from '../../node/chain/block-hashing.ts';
import type { ChainHistory } from '../../node/chain/chain.ts';
import { decodeExtraData, encodeExtraData, type QbftExtraData } from '../../node/chain/extra-data.ts';
import { bytesToHex, hexToBytes, type Hex } from '../../node/crypto/bytes.ts';
import { keccak256 } from '../../node/crypto/keccak.ts';
import { sign } from '../../node/crypto/secp256k1.ts';

const PARENT_HASH = 0;
const COINBASE = 2;
const NUMBER = 8;
const TIMESTAMP = 11;
const EXTRA_DATA = 12;

/** Sealed extraData kept (the blocks read last: a node's head, what sync serves, the blocks whose seals were checked). */
const SEALED_CACHE = 32_768;

export interface BlockTemplate {
  /** Raw header fields; extraData with round 0 and no seals. */
  header: readonly Uint8Array[];
  /** The raw body (transactions, ommers, withdrawals where the fork has them): empty lists. */
  body: readonly unknown[];
  /** Validators after the parent, ascending: the proposer rotation and the sealers. */
  validators: readonly Hex[];
  /** Private keys of the validators that seal (a quorum, in address order). */
  sealKeys: readonly Uint8Array[];
}

interface TemplateFacts extends BlockTemplate {
  extra: QbftExtraData;
  coinbases: Uint8Array[];
  /** The header's RLP between its own fields: after parentHash, after coinbase, after number, after timestamp. */
  segments: [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The RLP of the header's fields other than its own, in four runs (see TemplateFacts.segments). */
function segmentsOf(header: readonly Uint8Array[]): TemplateFacts['segments'] {
  const enc = header.map((f) => RLP.encode(f));
  return [concat(enc.slice(PARENT_HASH + 1, COINBASE)), concat(enc.slice(COINBASE + 1, NUMBER)), concat(enc.slice(NUMBER + 1, TIMESTAMP)), concat(enc.slice(TIMESTAMP + 1))];
}

/** Minimal big-endian bytes of a safe integer (RLP scalar). */
function scalar(value: number): Uint8Array {
  const out = new Uint8Array(byteLength(value));
  for (let i = out.length - 1, v = value; i >= 0; i--, v = Math.floor(v / 256)) out[i] = v % 256;
  return out;
}

/** Bytes of the minimal big-endian form of a non-negative safe integer. */
function byteLength(value: number): number {
  let length = 0;
  for (let v = value; v > 0; v = Math.floor(v / 256)) length++;
  return length;
}

/** Length of the RLP of a non-negative safe integer. */
function scalarLength(value: number): number {
  return value > 0 && value < 0x80 ? 1 : 1 + byteLength(value);
}

/** Writes the RLP of a non-negative safe integer at `at`; returns the offset after it. */
function writeScalar(out: Uint8Array, at: number, value: number): number {
  if (value > 0 && value < 0x80) {
    out[at] = value;
    return at + 1;
  }
  const bytes = scalar(value);
  out[at] = 0x80 + bytes.length;
  out.set(bytes, at + 1);
  return at + 1 + bytes.length;
}

function listHeaderLength(payload: number): number {
  return payload < 56 ? 1 : 1 + byteLength(payload);
}

/** Writes an RLP list header for a payload of `payload` bytes at 0; returns the offset after it. */
function writeListHeader(out: Uint8Array, payload: number): number {
  if (payload < 56) {
    out[0] = 0xc0 + payload;
    return 1;
  }
  const bytes = scalar(payload);
  out[0] = 0xf7 + bytes.length;
  out.set(bytes, 1);
  return 1 + bytes.length;
}

/** First 4 bytes of a hash as an unsigned integer: the bucket key of the hash index. */
function hashKey(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset]! << 24) | (bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!) >>> 0;
}

export class PrefixHistory implements ChainHistory {
  private count = 0;
  private scratch = new Uint8Array(1024);
  /** A bit per block: its stored hash was found again from its header. */
  private readonly hashChecked: Uint8Array;
  private readonly hashes: Uint8Array;
  private readonly timestamps: Float64Array;
  private readonly templateIds: Uint32Array;
  private readonly proposers: Uint8Array;
  /** Open addressing: block number + 1 at the slot of its hash key (0: empty). */
  private readonly index: Uint32Array;
  private readonly templates: TemplateFacts[] = [];
  private readonly sealed = new Map<number, QbftExtraData>();

  constructor(
    /** The most blocks it will hold. */
    readonly capacity: number,
  ) {
    this.hashes = new Uint8Array((capacity + 1) * 32);
    this.timestamps = new Float64Array(capacity + 1);
    this.hashChecked = new Uint8Array(Math.ceil((capacity + 1) / 8));
    this.templateIds = new Uint32Array(capacity + 1);
    this.proposers = new Uint8Array(capacity + 1);
    this.index = new Uint32Array(2 ** Math.ceil(Math.log2(2 * capacity + 2)));
  }

  /** Block 1's parent: the genesis block's hash (before the first append). */
  setGenesisHash(hash: Hex): void {
    if (this.count > 0) throw new Error('the genesis hash is set before the first block');
    this.hashes.set(hexToBytes(hash), 0);
  }

  get height(): number {
    return this.count;
  }

  /** Bytes held, for the report of the footprint. */
  get sizeBytes(): number {
    return this.hashes.byteLength + this.timestamps.byteLength + this.templateIds.byteLength + this.proposers.byteLength + this.index.byteLength;
  }

  addTemplate(t: BlockTemplate): number {
    if (t.validators.length > 255) throw new Error('a history template has at most 255 validators');
    const extra = decodeExtraData(t.header[EXTRA_DATA]!);
    if (extra.round !== 0 || extra.seals.length > 0) throw new Error('a history template has round 0 and no seals');
    if (t.header[PARENT_HASH]!.length !== 32 || t.validators.some((v) => v.length !== 42)) throw new Error('a history template has a 32-byte parent hash and 20-byte validators');
    this.templates.push({ ...t, extra, coinbases: t.validators.map(hexToBytes), segments: segmentsOf(t.header) });
    return this.templates.length - 1;
  }

  template(id: number): BlockTemplate {
    return this.templates[id]!;
  }

  templateOf(n: number): number {
    return this.templateIds[n]!;
  }

  /** Appends block height + 1; returns its hash. */
  append(templateId: number, proposer: number, timestampSeconds: number): Uint8Array {
    const n = this.count + 1;
    if (n > this.capacity) throw new Error(`the history holds at most ${this.capacity} blocks`);
    const t = this.templates[templateId]!;
    if (proposer >= t.validators.length) throw new Error(`no validator ${proposer} in template ${templateId}`);
    this.templateIds[n] = templateId;
    this.proposers[n] = proposer;
    this.timestamps[n] = timestampSeconds;
    const hash = keccak256(this.encodeHeader(n));
    this.hashes.set(hash, n * 32);
    this.count = n;
    this.indexHash(n);
    return hash;
  }

  /** The header fields of block n as hashed (extraData without seals). */
  rawHeader(n: number): Uint8Array[] {
    const t = this.templates[this.templateIds[n]!]!;
    const header = [...t.header];
    header[PARENT_HASH] = this.hashes.subarray((n - 1) * 32, n * 32);
    header[COINBASE] = t.coinbases[this.proposers[n]!]!;
    header[NUMBER] = scalar(n);
    header[TIMESTAMP] = scalar(this.timestamps[n]!);
    return header;
  }

  /**
   * The RLP of block n's header as hashed: its template's runs with its own four fields between
   * them. Written in a buffer the next call reuses (the history is hashed a million times).
   */
  encodeHeader(n: number): Uint8Array {
    const t = this.templates[this.templateIds[n]!]!;
    const [afterParent, afterCoinbase, afterNumber, afterTimestamp] = t.segments;
    const timestamp = this.timestamps[n]!;
    const length = 33 + afterParent.length + 21 + afterCoinbase.length + scalarLength(n) + afterNumber.length + scalarLength(timestamp) + afterTimestamp.length;
    const total = listHeaderLength(length) + length;
    if (this.scratch.length < total) this.scratch = new Uint8Array(2 * total);
    const out = this.scratch.subarray(0, total);
    let at = writeListHeader(out, length);
    out[at] = 0xa0;
    out.set(this.hashes.subarray((n - 1) * 32, n * 32), at + 1);
    at += 33;
    out.set(afterParent, at);
    at += afterParent.length;
    out[at] = 0x94;
    out.set(t.coinbases[this.proposers[n]!]!, at + 1);
    at += 21;
    out.set(afterCoinbase, at);
    at = writeScalar(out, at + afterCoinbase.length, n);
    out.set(afterNumber, at);
    at = writeScalar(out, at + afterNumber.length, timestamp);
    out.set(afterTimestamp, at);
    return out;
  }

  /**
   * Block n's hash computed again from its header (each block once: hashing does not depend on the
   * rules it is judged by); it differs from the stored one only if the history is broken.
   */
  headerHash(n: number): Uint8Array {
    const bit = 1 << (n & 7);
    if ((this.hashChecked[n >> 3]! & bit) !== 0) return this.hashBytesAt(n);
    const hash = keccak256(this.encodeHeader(n));
    if (this.sameHash(n, hash)) this.hashChecked[n >> 3]! |= bit;
    return hash;
  }

  hashBytesAt(n: number): Uint8Array {
    return this.hashes.subarray(n * 32, n * 32 + 32);
  }

  hashAt(n: number): Hex {
    this.check(n);
    return bytesToHex(this.hashBytesAt(n));
  }

  numberOf(hash: Hex): number | undefined {
    if (hash.length !== 66) return undefined;
    const bytes = hexToBytes(hash);
    const mask = this.index.length - 1;
    for (let slot = hashKey(bytes, 0) & mask; ; slot = (slot + 1) & mask) {
      const stored = this.index[slot]!;
      if (stored === 0) return undefined;
      const n = stored - 1;
      if (n <= this.count && this.sameHash(n, bytes)) return n;
    }
  }

  timestampAt(n: number): number {
    this.check(n);
    return this.timestamps[n]!;
  }

  coinbaseAt(n: number): Hex {
    this.check(n);
    return this.templates[this.templateIds[n]!]!.validators[this.proposers[n]!]!;
  }

  /** Block n's extraData; its seals are signed on first read of `seals`. */
  extraAt(n: number): QbftExtraData {
    this.check(n);
    const cached = this.sealed.get(n);
    if (cached) return cached;
    const t = this.templates[this.templateIds[n]!]!;
    const sealsOf = () => this.sealedExtra(n).seals;
    return {
      vanity: t.extra.vanity,
      validators: t.extra.validators,
      ...(t.extra.vote ? { vote: t.extra.vote } : {}),
      round: 0,
      get seals() {
        return sealsOf();
      },
    };
  }

  blockAt(n: number, common: Common): Block {
    this.check(n);
    const header = this.rawHeader(n);
    header[EXTRA_DATA] = encodeExtraData(this.sealedExtra(n));
    return blockFromValues([header, ...this.templates[this.templateIds[n]!]!.body], common);
  }

  /** A fixed-height view, as a node's store holds it. */
  view(height: number): ChainHistory {
    if (height > this.count) throw new Error(`the history has ${this.count} blocks, not ${height}`);
    const check = (n: number) => {
      if (!Number.isInteger(n) || n < 1 || n > height) throw new RangeError(`block ${n} is not in the history (1..${height})`);
    };
    return {
      height,
      hashAt: (n) => (check(n), this.hashAt(n)),
      numberOf: (hash) => {
        const n = this.numberOf(hash);
        return n !== undefined && n >= 1 && n <= height ? n : undefined;
      },
      timestampAt: (n) => (check(n), this.timestampAt(n)),
      coinbaseAt: (n) => (check(n), this.coinbaseAt(n)),
      extraAt: (n) => (check(n), this.extraAt(n)),
      blockAt: (n, common) => (check(n), this.blockAt(n, common)),
    };
  }

  private sealedExtra(n: number): QbftExtraData {
    let extra = this.sealed.get(n);
    if (!extra) {
      const t = this.templates[this.templateIds[n]!]!;
      const hash = this.hashBytesAt(n);
      extra = { ...t.extra, seals: t.sealKeys.map((key) => sign(hash, key)) };
      if (this.sealed.size >= SEALED_CACHE) this.sealed.delete(this.sealed.keys().next().value as number);
      this.sealed.set(n, extra);
    }
    return extra;
  }

  private indexHash(n: number): void {
    const mask = this.index.length - 1;
    let slot = hashKey(this.hashes, n * 32) & mask;
    while (this.index[slot] !== 0) slot = (slot + 1) & mask;
    this.index[slot] = n + 1;
  }

  private sameHash(n: number, bytes: Uint8Array): boolean {
    const at = n * 32;
    for (let i = 0; i < 32; i++) if (this.hashes[at + i] !== bytes[i]) return false;
    return true;
  }

  private check(n: number): void {
    if (!Number.isInteger(n) || n < 1 || n > this.count) throw new RangeError(`block ${n} is not in the history (1..${this.count})`);
  }
}

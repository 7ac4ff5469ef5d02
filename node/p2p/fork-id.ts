/**
 * EIP-2124 fork identifiers for the eth Status message and eth_config, one computation for both.
 *
 * - Fork hash: CRC-32 over the genesis hash, then each passed fork activation point as 8 bytes
 *   big-endian: block-number forks first, then timestamp forks. Block forks at 0, timestamp forks
 *   at or before the genesis time, and repeats are skipped.
 * - At a head: a block fork is passed when head number >= its block, a timestamp fork when head
 *   timestamp >= its time (timestamp forks count only once every block fork is passed). `next` is
 *   the first fork not passed, 0 when none is left.
 * - A QBFT network with every fork at genesis has forkId [crc32(genesisHash), 0].
 * - Checking a peer's fork id follows Besu's ForkIdManager.peerCheck (its reading of EIP-2124's
 *   rules; besu snapshot 3fd224e2), see acceptsRemoteForkId.
 */
import { bytesToHex, hexToBytes, type Hex } from '../crypto/bytes.ts';
import type { ForkId } from './eth-messages.ts';

const TABLE: Uint32Array = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (IEEE), continuing from `crc` (0 for a fresh checksum). */
export function crc32(data: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < data.length; i++) c = TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

function u64(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n);
  return out;
}

function hashBytes(crc: number): Uint8Array {
  const hash = new Uint8Array(4);
  new DataView(hash.buffer).setUint32(0, crc);
  return hash;
}

const ascendingDistinct = (values: bigint[]): bigint[] => [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

export function forkIdOf(genesisHash: Hex, passedForks: bigint[] = [], nextFork = 0n): ForkId {
  let c = crc32(hexToBytes(genesisHash));
  for (const p of ascendingDistinct(passedForks.filter((f) => f > 0n))) c = crc32(u64(p), c);
  return { hash: hashBytes(c), next: nextFork };
}

/** The genesis fields that schedule forks (a structural subset of chain/genesis.ts Genesis). */
export interface GenesisForks {
  /** Block-number forks by name. */
  forkBlocks: Record<string, number>;
  /** Timestamp forks by name (seconds). */
  forkTimestamps: Record<string, number>;
  /** The genesis block's timestamp (seconds). */
  timestamp: number;
}

/** Where a chain is, as far as forks are concerned: a head's number and timestamp (seconds). */
export interface ForkPosition {
  number: bigint;
  timestamp: bigint;
}

interface ForkPoint {
  value: bigint;
  by: 'block' | 'time';
}

/** A genesis fork schedule, prepared for fork id computation and checks. */
export interface ForkSchedule {
  /** Forks that change the fork hash, in hashing order (block forks ascending, then time forks ascending). */
  readonly points: readonly ForkPoint[];
  /**
   * ids[i] is the fork id before points[i] passes (next = points[i].value); the last one, after
   * every fork, has next 0. Without forks it is only [crc32(genesisHash), 0].
   */
  readonly ids: readonly ForkId[];
  /**
   * Besu's "highest known fork": the largest configured timestamp fork if any is configured, else
   * the largest block fork, else 0, taken before skipping forks at genesis (so it may be 0 or
   * the genesis time).
   */
  readonly highestConfigured: bigint;
}

export function forkScheduleOf(genesisHash: Hex, genesis: GenesisForks): ForkSchedule {
  const rawBlocks = Object.values(genesis.forkBlocks).map(BigInt);
  const rawTimes = Object.values(genesis.forkTimestamps).map(BigInt);
  const genesisTime = BigInt(genesis.timestamp);
  const points: ForkPoint[] = [
    ...ascendingDistinct(rawBlocks.filter((b) => b > 0n)).map((value) => ({ value, by: 'block' as const })),
    ...ascendingDistinct(rawTimes.filter((t) => t > genesisTime)).map((value) => ({ value, by: 'time' as const })),
  ];
  const ids: ForkId[] = [];
  let crc = crc32(hexToBytes(genesisHash));
  for (const p of points) {
    ids.push({ hash: hashBytes(crc), next: p.value });
    crc = crc32(u64(p.value), crc);
  }
  ids.push({ hash: hashBytes(crc), next: 0n });
  const highest = (values: bigint[]) => values.reduce((a, b) => (b > a ? b : a), 0n);
  const highestConfigured = rawTimes.length > 0 ? highest(rawTimes) : highest(rawBlocks);
  return { points, ids, highestConfigured };
}

function passed(point: ForkPoint, head: ForkPosition): boolean {
  return (point.by === 'block' ? head.number : head.timestamp) >= point.value;
}

/** Our fork id with `head` as the chain head (what Status carries). */
export function forkIdAtHead(schedule: ForkSchedule, head: ForkPosition): ForkId {
  const i = schedule.points.findIndex((p) => !passed(p, head));
  return schedule.ids[i === -1 ? schedule.ids.length - 1 : i];
}

/**
 * Whether a peer announcing `remote` may be on our chain, with `head` as our chain head, as
 * Besu's ForkIdManager.peerCheck decides (it is laxer than EIP-2124's four rules in places):
 * - no fork after genesis: any fork id passes (the genesis hash check decides);
 * - the remote hash must be one our schedule goes through;
 * - before our last fork has passed, that is enough;
 * - after it, the remote `next` must be one of ours or beyond our highest configured fork, and
 *   the remote must know of the fork that follows its hash (or, where our schedule ends at that
 *   hash, announce one at or beyond our highest configured fork).
 */
export function acceptsRemoteForkId(schedule: ForkSchedule, remote: ForkId, head: ForkPosition): boolean {
  const { points, ids, highestConfigured } = schedule;
  if (points.length === 0) return true;
  const remoteHash = bytesToHex(remote.hash);
  const at = ids.find((id) => bytesToHex(id.hash) === remoteHash);
  if (at === undefined) return false;
  if (!passed(points[points.length - 1], head)) return true;
  const nextKnown = remote.next > highestConfigured || ids.some((id) => id.next === remote.next);
  if (!nextKnown) return false;
  if (at.next === remote.next) return true;
  return at.next === 0n && highestConfigured <= remote.next;
}

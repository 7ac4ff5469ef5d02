/**
 * Validators across a block tree in block-header selection mode (Besu:
 * consensus/common/.../validator/blockbased/VoteTallyCache.java, ForkingVoteTallyCache.java,
 * VoteTallyUpdater.java, consensus/common/.../EpochManager.java).
 *
 * "Tally after block B" is what the block B+1 must list in its extraData, whose proposer is chosen
 * from, and whose seals are counted against. It is computed from B's ancestry:
 *
 *   base(B) = VoteTally(override(B.number + 1))   if a transition sets `validators` for block B+1
 *           = VoteTally(genesisValidators)          if B is the genesis block
 *           = VoteTally(B.extraData.validators)      if B is an epoch block (B.number % epochLength == 0)
 *           = tallyAfter(B.parent)                   otherwise
 *   tallyAfter(B) = base(B) with outstanding votes dropped  if B is an epoch block (its own vote ignored)
 *                 = base(B) with B's vote (cast by B.coinbase) applied  otherwise
 *
 * Transition overrides, as Besu's ForkingVoteTallyCache.getValidatorsAfter does it: an override for
 * block N replaces the base of block N-1, i.e. the tally *before* N-1's vote, with a fresh tally of
 * the override list (outstanding votes dropped), and then N-1's own vote is still applied on top
 * (unless N-1 is an epoch block). So validatorsFor(N) = override list, plus the effect of N-1's vote,
 * which with one vote only matters when the override list has at most one validator (threshold 1);
 * N-1's vote otherwise stays outstanding in the new tally. The override takes precedence over the
 * epoch rule. Blocks before N-1 are unaffected.
 *
 * Results are cached per block hash (so sibling forks with different votes coexist) in an LRU of
 * `cacheSize` entries (Besu keeps 100). A miss walks back through `getHeader(parentHash)` to a cached
 * ancestor, an epoch block, an override or block 1 (whose parent's tally is always known from
 * genesisValidators, so the genesis header itself is never needed), and caches every block on the way.
 *
 * API: afterBlock(header) / tallyAfterBlock(header) = after that block (header given, parent via
 * cache or getHeader); validatorsAfter(hash) / tallyAfter(hash) = same by hash (cache or getHeader);
 * validatorsFor(n, parentHash) = the set for block n, i.e. validatorsAfter(parentHash), checking
 * the parent is block n-1. Throws UnknownBlockError when a needed header is unavailable.
 */
import type { Hex } from '../../../crypto/bytes.ts';
import { VoteTally, type ValidatorVote } from './vote-tally.ts';

export interface HeaderVoteInfo {
  number: number;
  coinbase: Hex;
  /** The validator list in the block's extraData. */
  validators: Hex[];
  vote?: ValidatorVote;
}

export interface ChainHeaderInfo extends HeaderVoteInfo {
  hash: string;
  parentHash: string;
}

export interface BlockHeaderValidatorsOptions {
  /** genesis `qbft.epochlength` (> 0). */
  epochLength: number;
  /** The validator list in the genesis extraData. */
  genesisValidators: Hex[];
  /** transitions.qbft `validators` in force from that exact block number, if any. */
  overrideAt?: (blockNumber: number) => Hex[] | undefined;
  /** Header lookup by hash, for blocks not (or no longer) in the cache. */
  getHeader?: (hash: string) => ChainHeaderInfo | undefined;
  /** Max cached tallies (default 1024). */
  cacheSize?: number;
}

export class UnknownBlockError extends Error {
  constructor(readonly hash: string) {
    super(`cannot determine validators: block ${hash} is neither cached nor available from getHeader`);
    this.name = 'UnknownBlockError';
  }
}

export const DEFAULT_TALLY_CACHE_SIZE = 1024;

/** Besu EpochManager with startBlock 0: block n is an epoch block iff n % epochLength == 0. */
export function isEpochBlock(blockNumber: number, epochLength: number): boolean {
  return blockNumber % epochLength === 0;
}

/** Validators listed in a block's own extraData, ascending (Besu getValidatorsForBlock, used by RPC). */
export function validatorsListedIn(h: HeaderVoteInfo): Hex[] {
  return [...h.validators].sort();
}

interface Entry {
  number: number;
  tally: VoteTally;
}

export class BlockHeaderValidators {
  private readonly cache = new Map<string, Entry>();
  private readonly epochLength: number;
  private readonly cacheSize: number;

  constructor(private readonly opts: BlockHeaderValidatorsOptions) {
    if (!Number.isSafeInteger(opts.epochLength) || opts.epochLength <= 0)
      throw new RangeError(`epochLength must be a positive integer, got ${opts.epochLength}`);
    this.epochLength = opts.epochLength;
    this.cacheSize = opts.cacheSize ?? DEFAULT_TALLY_CACHE_SIZE;
    if (!Number.isSafeInteger(this.cacheSize) || this.cacheSize < 1) throw new RangeError('cacheSize must be ≥ 1');
  }

  /** Validators after applying block `h` (ascending): the set for block h.number + 1. */
  afterBlock(h: ChainHeaderInfo): Hex[] {
    return this.tallyAfterBlock(h).validators();
  }

  /** The full tally (validators + outstanding votes) after applying block `h`. */
  tallyAfterBlock(h: ChainHeaderInfo): VoteTally {
    const hit = this.lookup(h.hash);
    if (hit) return hit.tally;
    const pending: ChainHeaderInfo[] = [h];
    let cur = h;
    let base = this.selfContainedBase(cur);
    while (!base) {
      const parentHit = this.lookup(cur.parentHash);
      if (parentHit) {
        base = parentHit.tally;
        break;
      }
      if (cur.number === 1) {
        // The parent is genesis, whose tally needs no header: genesisValidators (or an override for block 1).
        base = this.genesisTally();
        this.store(cur.parentHash, { number: 0, tally: base });
        break;
      }
      const parent = this.opts.getHeader?.(cur.parentHash);
      if (!parent) throw new UnknownBlockError(cur.parentHash);
      if (parent.number !== cur.number - 1)
        throw new Error(`block ${cur.hash} (#${cur.number}) names parent ${parent.hash} numbered ${parent.number}`);
      pending.push(parent);
      cur = parent;
      base = this.selfContainedBase(cur);
    }
    let tally = base;
    for (let i = pending.length - 1; i >= 0; i--) {
      tally = this.applyBlock(tally, pending[i]);
      this.store(pending[i].hash, { number: pending[i].number, tally });
    }
    return tally;
  }

  /** Validators after the block with this hash (from the cache, else via getHeader). */
  validatorsAfter(hash: string): Hex[] {
    return this.tallyAfter(hash).validators();
  }

  /** Tally after the block with this hash (from the cache, else via getHeader). */
  tallyAfter(hash: string): VoteTally {
    return this.entryAfter(hash).tally;
  }

  /**
   * Validators for block `blockNumber` (those that must be listed in its extraData, may propose it
   * and must seal it) = validators after its parent. Throws if the parent is not block blockNumber-1.
   */
  validatorsFor(blockNumber: number, parentHash: string): Hex[] {
    const entry = this.entryAfter(parentHash);
    if (entry.number !== blockNumber - 1)
      throw new Error(`block ${parentHash} is #${entry.number}, not the parent of #${blockNumber}`);
    return entry.tally.validators();
  }

  /** Whether the tally after this block is cached (without touching LRU order). */
  isCached(hash: string): boolean {
    return this.cache.has(hash);
  }

  get cachedCount(): number {
    return this.cache.size;
  }

  clear(): void {
    this.cache.clear();
  }

  private entryAfter(hash: string): Entry {
    const hit = this.lookup(hash);
    if (hit) return hit;
    const header = this.opts.getHeader?.(hash);
    if (!header) throw new UnknownBlockError(hash);
    const tally = this.tallyAfterBlock(header);
    return { number: header.number, tally };
  }

  /** base(B) when it does not depend on B's parent (see the module comment), else undefined. */
  private selfContainedBase(h: HeaderVoteInfo): VoteTally | undefined {
    const override = this.opts.overrideAt?.(h.number + 1);
    if (override) return VoteTally.fromValidators(override);
    if (h.number === 0) return this.genesisTally();
    if (isEpochBlock(h.number, this.epochLength)) return VoteTally.fromValidators(h.validators);
    return undefined;
  }

  /** Tally after block 0: genesisValidators, or the override for block 1; never any votes. */
  private genesisTally(): VoteTally {
    return VoteTally.fromValidators(this.opts.overrideAt?.(1) ?? this.opts.genesisValidators);
  }

  /** Besu VoteTallyUpdater.updateForBlock. */
  private applyBlock(tally: VoteTally, h: HeaderVoteInfo): VoteTally {
    if (isEpochBlock(h.number, this.epochLength)) return tally.withoutOutstandingVotes();
    return h.vote ? tally.applyVote(h.coinbase, h.vote) : tally;
  }

  private lookup(hash: string): Entry | undefined {
    const e = this.cache.get(hash);
    if (e) {
      this.cache.delete(hash);
      this.cache.set(hash, e);
    }
    return e;
  }

  private store(hash: string, e: Entry): void {
    this.cache.delete(hash);
    this.cache.set(hash, e);
    while (this.cache.size > this.cacheSize) {
      const oldest = this.cache.keys().next().value as string;
      this.cache.delete(oldest);
    }
  }
}

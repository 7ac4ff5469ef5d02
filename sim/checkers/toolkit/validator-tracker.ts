/**
 * The validator set for every block the run has shown, tracked from the genesis along each
 * block's own ancestry (so forks keep their own sets), by the checkers' reading of Besu's rules:
 *
 * Block-header mode. The set for block N is the tally after its parent P, where the tally after a
 * block B (number b) starts from
 *   - a fresh tally of the override list, when a transition lists `validators` for block b + 1;
 *   - a fresh tally of the genesis validators, for the genesis block;
 *   - a fresh tally of the validators listed in B's extraData, when B is an epoch block
 *     (b % epochLength == 0);
 *   - else the tally after B's parent;
 * and then takes B's own effect: an epoch block drops every outstanding vote (its own vote is
 * ignored); any other block applies its vote (cast by its coinbase). A vote for a subject
 * replaces the caster's opposite vote; once the add (or drop) votes for a subject reach
 * floor(n/2) + 1 of the current n validators, the subject is added (or removed) and every vote
 * about it discarded; a removed validator's own outstanding votes are discarded too.
 *
 * Contract mode. The set for block N is what the contract returns (known only for the
 * simulator's static contract, see genesis-rules.ts).
 */
import { sortedAddresses } from './bft-math.ts';
import type { Hex } from './crypto.ts';
import type { DecodedBlock, HeaderVote } from './block.ts';
import type { GenesisRules } from './genesis-rules.ts';

interface Tally {
  validators: readonly Hex[];
  addVotes: ReadonlyMap<Hex, ReadonlySet<Hex>>;
  dropVotes: ReadonlyMap<Hex, ReadonlySet<Hex>>;
}

export interface TrackedBlock {
  block: DecodedBlock;
  /** The validators for this block (after its parent), or undefined when they cannot be known. */
  validators: Hex[] | undefined;
  /** Why the validators are unknown. */
  unknownBecause?: string;
  /** The coinbase of its parent: the previous proposer for the rotation. */
  parentCoinbase: Hex | undefined;
}

const NO_VOTES: ReadonlyMap<Hex, ReadonlySet<Hex>> = new Map();

function fresh(validators: Iterable<Hex>): Tally {
  return { validators: sortedAddresses(validators), addVotes: NO_VOTES, dropVotes: NO_VOTES };
}

function castVote(t: Tally, caster: Hex, vote: HeaderVote): Tally {
  const subject = vote.recipient;
  const adds = new Set(t.addVotes.get(subject) ?? []);
  const drops = new Set(t.dropVotes.get(subject) ?? []);
  if (vote.add) {
    adds.add(caster);
    drops.delete(caster);
  } else {
    drops.add(caster);
    adds.delete(caster);
  }
  const addVotes = new Map(t.addVotes);
  const dropVotes = new Map(t.dropVotes);
  const put = (m: Map<Hex, ReadonlySet<Hex>>, s: Set<Hex>) => (s.size > 0 ? m.set(subject, s) : m.delete(subject));
  put(addVotes, adds);
  put(dropVotes, drops);
  const needed = Math.floor(t.validators.length / 2) + 1;
  let validators = [...t.validators];
  if (adds.size >= needed) {
    validators = sortedAddresses([...validators, subject]);
    addVotes.delete(subject);
    dropVotes.delete(subject);
  }
  // Evaluated on the drop votes as they stood before the add branch discarded them (Besu keeps a reference).
  if (drops.size >= needed) {
    validators = validators.filter((v) => v !== subject);
    addVotes.delete(subject);
    dropVotes.delete(subject);
    for (const m of [addVotes, dropVotes]) {
      for (const [s, voters] of [...m]) {
        if (!voters.has(subject)) continue;
        const rest = new Set(voters);
        rest.delete(subject);
        if (rest.size > 0) m.set(s, rest);
        else m.delete(s);
      }
    }
  }
  return { validators, addVotes, dropVotes };
}

export class ValidatorTracker {
  /** Tally after each block by on-chain hash; undefined when it cannot be known. */
  private readonly tallies = new Map<Hex, Tally | undefined>();
  private readonly blocks = new Map<Hex, TrackedBlock>();
  private readonly genesisTally: Tally;

  constructor(private readonly rules: GenesisRules) {
    this.genesisTally = fresh(rules.overrideAt(1) ?? rules.genesisValidators);
  }

  get(hash: Hex): TrackedBlock | undefined {
    return this.blocks.get(hash);
  }

  /** The validators for block `number` built on `parentHash` (block 1 is always built on the genesis). */
  validatorsFor(number: number, parentHash: Hex): { validators: Hex[] | undefined; unknownBecause?: string; parentCoinbase: Hex | undefined } {
    const mode = this.rules.modeAt(number);
    const parentCoinbase = number === 1 ? this.rules.genesisCoinbase : this.blocks.get(parentHash)?.block.coinbase;
    if (mode.kind === 'unknown') return { validators: undefined, unknownBecause: 'the selection mode at this block is not known (time-based transitions)', parentCoinbase };
    if (mode.kind === 'contract') {
      if (!mode.validators) return { validators: undefined, unknownBecause: 'contract validator mode with a contract whose answer is not read', parentCoinbase };
      return { validators: [...mode.validators], parentCoinbase };
    }
    const tally = this.tallyAfterParent(number, parentHash);
    if (!tally) return { validators: undefined, unknownBecause: 'the parent block or its validator tally is not known', parentCoinbase };
    return { validators: [...tally.validators], parentCoinbase };
  }

  /** Records a block (once per on-chain hash) and returns what is known about it. */
  add(block: DecodedBlock): TrackedBlock {
    const known = this.blocks.get(block.onchainHash);
    if (known) return known;
    const ctx = this.validatorsFor(block.number, block.parentHash);
    const tracked: TrackedBlock = { block, validators: ctx.validators, parentCoinbase: ctx.parentCoinbase };
    if (ctx.unknownBecause) tracked.unknownBecause = ctx.unknownBecause;
    this.blocks.set(block.onchainHash, tracked);
    this.tallies.set(block.onchainHash, this.tallyAfter(block));
    return tracked;
  }

  private tallyAfterParent(number: number, parentHash: Hex): Tally | undefined {
    if (number === 1) return this.genesisTally;
    return this.tallies.get(parentHash);
  }

  private tallyAfter(block: DecodedBlock): Tally | undefined {
    const override = this.rules.overrideAt(block.number + 1);
    const epoch = block.number % this.rules.epochLength === 0;
    let base: Tally | undefined;
    if (override) base = fresh(override);
    else if (epoch && !('error' in block.extra)) base = fresh(block.extra.validators);
    else if (this.rules.modeAt(block.number).kind !== 'blockheader') base = undefined;
    else base = this.tallyAfterParent(block.number, block.parentHash);
    if (!base) return undefined;
    if (epoch) return { validators: base.validators, addVotes: NO_VOTES, dropVotes: NO_VOTES };
    if ('error' in block.extra || !block.extra.vote) return base;
    return castVote(base, block.coinbase, block.extra.vote);
  }
}

/**
 * Builds the history of a rehearsal at a real height: blocks 1..height as the network made them
 * under the old genesis, without the message exchange. The node's own block creator
 * (QbftNode.buildProposalBlock: the validators after the parent, the round-0 proposer of the
 * rotation as coinbase, the block period's timestamp, the rules of the fork in force) builds every
 * block around a change of rules; once two blocks in a row differ only in parent hash, coinbase,
 * number and timestamp (an empty block whose execution leaves the state as it was: no reward, no
 * system contract), the next ones up to the next change are that block with those four fields of
 * their own (prefix-history.ts). A chain whose every block changes the state (a block reward) is
 * built block by block, which costs about a millisecond a block: MAX_BUILT_BLOCKS bounds it.
 */
import { bytesToHex, equalBytes, type Hex } from '../../node/crypto/bytes.ts';
import type { Genesis } from '../../node/chain/genesis.ts';
import type { BugSwitches } from '../../node/bugs/bug-switches.ts';
import { onchainBlockHash } from '../../node/chain/block-hashing.ts';
import { quorumSize } from '../../node/consensus/qbft/quorum.ts';
import { selectProposer } from '../../node/consensus/qbft/proposer-selection.ts';
import type { TrieNodeStore } from '../../node/execution/state-db.ts';
import type { QbftNode } from '../../node/node.ts';
import type { NodeKey } from '../keys.ts';
import { SimStore } from '../storage.ts';
import type { BlockSchedule } from './block-schedule.ts';
import { OperatorInputError } from './operator-genesis.ts';
import { PrefixHistory, type BlockTemplate } from './prefix-history.ts';
import { startScratchNode } from './scratch-node.ts';

/** Blocks built one by one through the node at most (about a millisecond each). */
export const MAX_BUILT_BLOCKS = 20_000;
/** Blocks in a row after which a history that never becomes copies is judged by what is left (its base fee has long settled). */
const SETTLE_BLOCKS = 512;

/** Header fields a block has of its own; the others are its template's. */
const OWN_FIELDS = new Set([0, 2, 8, 11]);
const STATE_ROOT = 3;

export interface PrefixBuild {
  genesis: Genesis;
  sched: BlockSchedule;
  height: number;
  /** Blocks the history can hold (default `height`; more for a caller that appends to it). */
  capacity?: number;
  /** Stand-in keys of the simulated validators. */
  keys: readonly NodeKey[];
  bugs: BugSwitches;
  /** Blocks built through the node whatever (ruleBoundaries). */
  boundaries: ReadonlySet<number>;
  db: TrieNodeStore;
}

export interface BuiltPrefix {
  history: PrefixHistory;
  /** Blocks the node's block creator built (the others are copies of those with their own four fields). */
  built: number;
}

function sameTemplate(a: BlockTemplate, header: readonly Uint8Array[], validators: readonly Hex[]): boolean {
  if (a.header.length !== header.length || a.validators.join() !== validators.join()) return false;
  return header.every((field, i) => OWN_FIELDS.has(i) || equalBytes(field, a.header[i]!));
}

function sealKeysFor(validators: readonly Hex[], keys: ReadonlyMap<Hex, NodeKey>, block: number): Uint8Array[] {
  const held = validators.filter((v) => keys.has(v));
  const quorum = quorumSize(validators.length);
  if (held.length < quorum) {
    throw new OperatorInputError(
      `block ${block} of the old genesis has ${validators.length} validators of which the simulator holds the keys of ${held.length} (the others are not genesis validators): fewer than a quorum of ${quorum} to seal the blocks before --at-block; give --at-block below ${block}`,
    );
  }
  return held.slice(0, quorum).map((v) => keys.get(v)!.privateKey);
}

class Builder {
  private templateId = -1;
  /** The last block built through the node, and whether the one before it had the same template. */
  private lastBuilt = -1;
  private steady = false;
  /** Blocks built through the node since the last copy. */
  private inARow = 0;
  built = 0;

  constructor(
    private readonly o: PrefixBuild,
    private readonly node: QbftNode,
    readonly history: PrefixHistory,
    private readonly keys: ReadonlyMap<Hex, NodeKey>,
  ) {}

  timestampOf(n: number): number {
    return Math.floor((this.o.sched.genesisTimestampMs + this.o.sched.timeOfBlockMs(n)) / 1000);
  }

  async next(n: number): Promise<void> {
    if (this.steady && !this.o.boundaries.has(n)) return this.copy(n);
    await this.build(n);
  }

  private copy(n: number): void {
    this.inARow = 0;
    const t = this.history.template(this.templateId);
    const proposer = selectProposer(t.validators, this.history.coinbaseAt(n - 1), 0);
    this.history.append(this.templateId, t.validators.indexOf(proposer), this.timestampOf(n));
  }

  private async build(n: number): Promise<void> {
    this.built++;
    this.inARow++;
    if (this.built > MAX_BUILT_BLOCKS || (this.inARow > SETTLE_BLOCKS && this.built + (this.o.height - n) > MAX_BUILT_BLOCKS)) {
      throw new OperatorInputError(
        `the old genesis changes the state at every block (a block reward, or a system contract): its history is built block by block, at most ${MAX_BUILT_BLOCKS} blocks, not the ${this.o.height} before --at-block; give --at-block below ${MAX_BUILT_BLOCKS}`,
      );
    }
    const parent = this.node.blockAt(n - 1)!;
    const validators = await this.node.validatorsAfter(parent);
    const proposer = selectProposer(validators, parent.coinbase, 0);
    const proposed = await this.node.buildProposalBlock({ parent, round: 0, timestampSeconds: this.timestampOf(n), coinbase: proposer, transactions: [] });
    const [header, ...body] = proposed.block.raw() as [Uint8Array[], ...unknown[]];
    const same = this.templateId >= 0 && this.lastBuilt === n - 1 && sameTemplate(this.history.template(this.templateId), header, validators);
    if (!same) this.templateId = this.history.addTemplate({ header, body, validators, sealKeys: sealKeysFor(validators, this.keys, n) });
    this.steady = same;
    this.lastBuilt = n;
    const hash = this.history.append(this.templateId, validators.indexOf(proposer), this.timestampOf(n));
    const expected = onchainBlockHash(proposed.block.header);
    if (!equalBytes(hash, expected)) throw new Error(`history block ${n}: hash ${bytesToHex(hash)} is not the built block's ${bytesToHex(expected)}`);
    this.node.pinState(header[STATE_ROOT]!);
  }
}

export async function buildPrefix(o: PrefixBuild): Promise<BuiltPrefix> {
  const store = new SimStore();
  const history = new PrefixHistory(o.capacity ?? o.height);
  // The builder's chain reads the history as it grows (blocks' parents, the validators' tally).
  store.history = history;
  const node = await startScratchNode({ genesis: o.genesis, key: o.keys[0]!, store, db: o.db, bugs: o.bugs });
  try {
    history.setGenesisHash(node.genesisBlock().hash);
    const builder = new Builder(o, node, history, new Map(o.keys.map((k) => [k.address, k])));
    for (let n = 1; n <= o.height; n++) await builder.next(n);
    return { history, built: builder.built };
  } finally {
    node.stop();
  }
}

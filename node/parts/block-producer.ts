/**
 * The blocks this node proposes and commits (Besu's QbftBlockCreator and its commit): a new block
 * on the height's parent with the pool's transactions, or a prepared block re-proposed at a new
 * round; once sealed, imported and announced.
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Common } from '@ethereumjs/common';
import { bytesToHex, hexToBytes, type Hex } from '../crypto/bytes.ts';
import { extraDataOf, onchainBlockHash, withExtraData } from '../chain/block-hashing.ts';
import type { Chain, ChainEntry } from '../chain/chain.ts';
import { encodeExtraData, type QbftExtraData } from '../chain/extra-data.ts';
import type { QbftForkSchedule } from '../chain/fork-schedule.ts';
import { EXPECTED_MIX_HASH } from '../chain/header-rules.ts';
import type { ExecutionEngine } from '../execution/engine.ts';
import type { TxPool } from '../execution/tx-pool.ts';
import type { BesuHooks } from '../bugs/hooks.ts';
import { proposedBlockFrom, type NodeProposedBlock, type Reproposal } from '../consensus/proposed-block.ts';
import type { VoteProposer } from '../consensus/qbft/validators/vote-proposer.ts';
import type { BlockSync } from '../p2p/block-sync.ts';
import type { ValidatorSets } from '../validator-sets.ts';
import type { BlockRequest, ProposalBlockSpec } from '../view/node-config.ts';
import type { ImportOutcome } from '../view/node-view.ts';
import type { BlockExecutor } from './block-executor.ts';
import type { HeightRules } from './height-rules.ts';

const MIX_HASH = hexToBytes(EXPECTED_MIX_HASH);

export interface BlockProducerDeps {
  address: Hex;
  common: Common;
  schedule: QbftForkSchedule;
  hooks: BesuHooks;
  reproposal: Reproposal | undefined;
  /** The 32-byte extraData vanity. */
  vanity: Uint8Array;
  votes: VoteProposer;
  rules: HeightRules;
  executor: BlockExecutor;
  chain(): Chain;
  engine(): ExecutionEngine;
  pool(): TxPool;
  validators(): ValidatorSets;
  sync(): BlockSync;
  importBlock(block: NodeProposedBlock['block']): Promise<ImportOutcome>;
}

export class BlockProducer {
  constructor(private readonly deps: BlockProducerDeps) {}

  async createBlock(req: BlockRequest): Promise<NodeProposedBlock> {
    const roundZeroBlocks = this.deps.hooks.blocksBuiltAtRoundZero;
    if (req.repropose) {
      if (roundZeroBlocks) return req.repropose;
      const prepared = req.repropose.block;
      const { reproposal } = this.deps;
      const block = reproposal ? reproposal(prepared, req.round, this.deps.address) : withExtraData(prepared, { ...extraDataOf(prepared.header), round: req.round, seals: [] }, this.deps.common);
      return proposedBlockFrom(block, undefined, reproposal);
    }
    // On the height's parent, as Besu's height manager holds it: sync may have moved the head meanwhile.
    const parent = this.deps.chain().canonicalAt(req.height - 1);
    if (!parent) throw new Error(`no parent for block ${req.height}`);
    return this.buildProposalBlock({
      parent,
      round: roundZeroBlocks ? 0 : req.round,
      timestampSeconds: req.timestampSeconds,
      coinbase: this.deps.address,
      transactions: await this.pendingForBlock(parent),
    });
  }

  /** The pool's transactions for a block on `parent`, as its block creator selects them. */
  private async pendingForBlock(parent: ChainEntry): Promise<TypedTransaction[]> {
    const pool = this.deps.pool();
    const engine = this.deps.engine();
    const stateRoot = parent.block.header.stateRoot;
    const nonces = new Map<Hex, bigint>();
    for (const tx of pool.pending()) {
      const sender = tx.getSenderAddress().toString().toLowerCase() as Hex;
      if (!nonces.has(sender)) nonces.set(sender, (await engine.getAccount(stateRoot, sender))?.nonce ?? 0n);
    }
    const header = parent.block.header;
    const baseFee = engine.nextBaseFee(header, header.number + 1n, header.timestamp + 1n);
    return pool.selectForBlock(baseFee, header.gasLimit, (sender) => nonces.get(sender) ?? 0n);
  }

  /**
   * Builds and executes a proposal block on any parent, with this node's extraData rules (its
   * vanity and pending vote). Besu: extraData (contract mode or not) from the fork at the parent's
   * timestamp; reward and beneficiary at the block's own.
   */
  async buildProposalBlock(spec: ProposalBlockSpec): Promise<NodeProposedBlock> {
    const { schedule, hooks, address } = this.deps;
    const { parent, round, timestampSeconds, coinbase } = spec;
    const height = parent.number + 1;
    const contractMode = schedule.paramsAt(height, parent.timestamp).validatorSelectionMode === 'contract';
    const validatorSets = this.deps.validators();
    const validators = await validatorSets.forChildOf(parent);
    const extra: QbftExtraData = {
      vanity: this.deps.vanity,
      validators: contractMode ? [] : validators,
      vote: contractMode ? undefined : this.deps.votes.nextVote(address, validators, validatorSets.tallyAfter(parent)),
      round,
      seals: [],
    };
    // The fees and the reward go to the beneficiary (the reward's amount is the fork's at the timestamp).
    const beneficiary = hooks.blockCreatorBeneficiary(schedule, height, timestampSeconds);
    const reward = this.deps.rules.rewardAt(height, timestampSeconds, coinbase);
    const { block, receipts } = await this.deps.engine().buildBlock({
      parent: parent.block,
      parentHash: onchainBlockHash(parent.block.header),
      number: BigInt(height),
      timestamp: timestampSeconds,
      coinbase,
      extraData: encodeExtraData(extra),
      mixHash: MIX_HASH,
      transactions: spec.transactions,
      reward: reward && { ...reward, to: beneficiary ?? coinbase },
      feeRecipient: beneficiary,
    });
    this.deps.executor.remember(bytesToHex(onchainBlockHash(block.header)), receipts);
    return proposedBlockFrom(block, undefined, this.deps.reproposal);
  }

  /** Seals a proposed block with its commit round and seals, imports it, and announces it once it is the head. */
  async commitBlock(proposed: NodeProposedBlock, round: number, seals: Uint8Array[]): Promise<void> {
    const extra = extraDataOf(proposed.block.header);
    const sealed = withExtraData(proposed.block, { ...extra, round, seals }, this.deps.common);
    const outcome = await this.deps.importBlock(sealed);
    if (outcome.ok && outcome.status === 'head') this.deps.sync().announceBlock(sealed, bytesToHex(onchainBlockHash(sealed.header)));
  }
}

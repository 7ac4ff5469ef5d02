/**
 * The header rules of a block against its parent (seals included for sealed imports), then its
 * ommers (Besu's generic body rules); a chain without a BFT section gets the proof-of-work import
 * rules instead.
 */
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import { committedSealHash, extraDataOf, onchainBlockHash } from '../chain/block-hashing.ts';
import type { Chain, ChainEntry } from '../chain/chain.ts';
import { checkBlobGasFields } from '../chain/blob-gas-rules.ts';
import type { QbftForkSchedule } from '../chain/fork-schedule.ts';
import type { Genesis } from '../chain/genesis.ts';
import { validateHeader, type HeaderFacts } from '../chain/header-rules.ts';
import { checkOmmers } from '../chain/ommer-rules.ts';
import { checkPowImportBlock } from '../chain/pow-import-rules.ts';
import type { ExecutionEngine } from '../execution/engine.ts';
import type { BesuHooks } from '../bugs/hooks.ts';
import { recoverAddressCached } from '../consensus/qbft/signer-cache.ts';
import type { Clock } from '../runtime/ports.ts';
import type { ValidatorSets } from '../validator-sets.ts';

export interface HeaderCheckerDeps {
  genesis: Genesis;
  schedule: QbftForkSchedule;
  common: Common;
  bft: boolean;
  hooks: BesuHooks;
  /** The clock a header's timestamp is judged against (the runtime's system clock when it has one). */
  headerClock(): Clock;
  chain(): Chain;
  engine(): ExecutionEngine;
  validators(): ValidatorSets;
}

export class HeaderChecker {
  constructor(private readonly deps: HeaderCheckerDeps) {}

  /** Header rules of a block against its parent (`checkSeals` for sealed imports), then its ommers (Besu's generic body rules). */
  async checkHeader(block: Block, parent: ChainEntry, checkSeals: boolean): Promise<string | undefined> {
    const { common } = this.deps;
    const blobGas = checkBlobGasFields(block.header, parent.block.header, common);
    if (blobGas) return blobGas;
    if (!this.deps.bft) {
      const parentHeader = parent.block.header;
      const expectedBaseFee = this.deps.engine().nextBaseFee(parentHeader, block.header.number, block.header.timestamp);
      return checkPowImportBlock(block, { parent: parentHeader, common, expectedBaseFee });
    }
    const chain = this.deps.chain();
    return (
      (await this.headerProblem(block.header, parent, checkSeals)) ??
      (await checkOmmers(block, {
        hashOf: (header) => bytesToHex(onchainBlockHash(header)),
        get: (hash) => chain.get(hash),
        checkOmmerHeader: (ommer, parentHash) => this.headerProblem(ommer, chain.get(parentHash)!, true),
      }))
    );
  }

  private async headerProblem(header: Block['header'], parentEntry: ChainEntry, withSeals: boolean): Promise<string | undefined> {
    const { schedule, hooks } = this.deps;
    // The ruleset of the fork at the header's own number and timestamp (Besu: getByBlockHeader).
    const params = schedule.paramsAt(Number(header.number), Number(header.timestamp));
    const period = hooks.blockPeriodFromParentFork ? schedule.paramsAt(parentEntry.number, parentEntry.timestamp) : params;
    const verdict = validateHeader(headerFacts({ header }), {
      parent: headerFacts(parentEntry.block, parentEntry.hash),
      validatorsAfterParent: await this.deps.validators().forChildOf(parentEntry),
      contractMode: hooks.headerRulesContractMode(params, schedule, this.deps.genesis.qbft.validatorContractAddress),
      blockPeriodSeconds: period.blockPeriodSeconds,
      blockPeriodMilliseconds: period.blockPeriodMilliseconds,
      nowSeconds: Math.floor(this.deps.headerClock().nowMs() / 1000),
      londonBlock: this.deps.genesis.forkBlocks['london'],
      committedSealHash: (round) => committedSealHash(header, round),
      recoverSealer: (hash, seal) => {
        const signer = recoverAddressCached(hash, seal);
        if (!signer) throw new Error('unrecoverable seal');
        return signer;
      },
      checkSeals: withSeals,
    });
    return verdict.ok ? undefined : `${verdict.rule}: ${verdict.reason}`;
  }

}

function headerFacts(block: { header: Block['header'] }, hash?: Hex): HeaderFacts {
  const h = block.header;
  const extra = extraDataOf(h);
  return {
    number: Number(h.number),
    parentHash: bytesToHex(h.parentHash),
    hash: hash ?? bytesToHex(onchainBlockHash(h)),
    timestamp: Number(h.timestamp),
    gasLimit: h.gasLimit,
    gasUsed: h.gasUsed,
    baseFeePerGas: h.baseFeePerGas,
    mixHash: bytesToHex(h.mixHash),
    difficulty: h.difficulty,
    coinbase: h.coinbase.toString().toLowerCase() as Hex,
    extraValidators: extra.validators,
    vote: extra.vote,
    round: extra.round,
    seals: extra.seals,
  };
}

/**
 * What a node checks about its genesis when it starts, beyond parsing it, as Besu does:
 * - QBFT extraData must decode (QbftBesuControllerBuilder.validateContext reads the genesis
 *   validators through QbftExtraDataCodec; a validator that is not 20 bytes is an RLPException
 *   there, and Besu does not start).
 * - Besu starts, with a warning, when block-header mode has no genesis validators, or contract mode
 *   has some (the same validateContext), and when the config names no consensus at all
 *   (BesuController.Builder.createControllerBuilder: "No consensus mechanism detected").
 * - Besu starts silently when extraData repeats a validator (VoteTally keeps a set); we warn.
 */
import type { Hex } from '../crypto/bytes.ts';
import { decodeExtraData } from './extra-data.ts';
import { QbftForkSchedule } from './fork-schedule.ts';
import { GenesisError, genesisWarning, type Genesis, type GenesisReading } from './genesis.ts';

/** The reading with the start-up warnings added; throws GenesisError where Besu does not start. */
export function checkedForStart(reading: GenesisReading): GenesisReading {
  return { genesis: reading.genesis, warnings: [...reading.warnings, ...startWarnings(reading.genesis)] };
}

/** Warnings about a genesis a node can start from; throws GenesisError for one it cannot. */
export function startWarnings(genesis: Genesis): string[] {
  if (genesis.consensus === 'ethash') return genesis.config.ethash === undefined ? [noConsensusWarning()] : [];
  if (genesis.consensus !== 'qbft') return [];
  const validators = genesisValidators(genesis);
  return [...signerWarnings(genesis, validators), ...duplicateWarnings(validators)];
}

function noConsensusWarning(): string {
  return genesisWarning('config', 'has no qbft section: the node runs no consensus and produces no blocks, it only imports and serves them');
}

function genesisValidators(genesis: Genesis): Hex[] {
  // QbftExtraDataCodec.decodeRaw refuses empty bytes before reading any RLP.
  if (genesis.extraData.length === 0) throw new GenesisError('extraData', 'is empty: a QBFT genesis lists its validators there (RLP [vanity, [validators], vote, round, [seals]])');
  try {
    return decodeExtraData(genesis.extraData).validators;
  } catch (err) {
    throw new GenesisError('extraData', `is not QBFT extraData: ${(err as Error).message.replace(/^extraData: /, '')}`);
  }
}

function signerWarnings(genesis: Genesis, validators: readonly Hex[]): string[] {
  if (genesis.qbft.validatorSelectionMode === 'contract') {
    return validators.length > 0 ? [genesisWarning('extraData', 'lists validators, but config.qbft.validatorcontractaddress selects contract mode: they are not used')] : [];
  }
  // Besu warns on the genesis list alone; a transition at block 1 can still supply validators.
  const atBlock1 = new QbftForkSchedule(genesis).paramsAt(1);
  if (atBlock1.validatorSelectionMode === 'contract' || (atBlock1.validators ?? validators).length > 0) return [];
  return [genesisWarning('extraData', 'lists no validators: no validator can propose block 1, so the chain will not progress')];
}

function duplicateWarnings(validators: readonly Hex[]): string[] {
  const repeated = validators.filter((v, i) => validators.indexOf(v) !== i);
  return [...new Set(repeated)].map((v) => genesisWarning('extraData', `lists validator ${v} more than once: it counts as one validator`));
}

/** One line for a QBFT transition, naming the operator's validators by their stand-ins (v<i>). */
import type { QbftTransition } from '../../node/chain/genesis.ts';
import { nameOfAddress, type StandIn } from './operator-genesis.ts';

export function describeTransition(standIns: readonly StandIn[], t: QbftTransition): string {
  const parts: string[] = [];
  if (t.blockPeriodSeconds !== undefined) parts.push(`blockperiodseconds ${t.blockPeriodSeconds}`);
  if (t.blockPeriodMilliseconds !== undefined) parts.push(`xblockperiodmilliseconds ${t.blockPeriodMilliseconds}`);
  if (t.emptyBlockPeriodSeconds !== undefined) parts.push(`emptyblockperiodseconds ${t.emptyBlockPeriodSeconds}`);
  if (t.blockReward !== undefined) parts.push(`blockreward ${t.blockReward}`);
  if (t.miningBeneficiary !== undefined) parts.push(`miningbeneficiary ${t.miningBeneficiary === null ? 'cleared' : nameOfAddress(standIns, t.miningBeneficiary)}`);
  if (t.validatorSelectionMode !== undefined) parts.push(`validatorselectionmode ${t.validatorSelectionMode}`);
  if (t.validatorContractAddress !== undefined) parts.push(`validatorcontractaddress ${t.validatorContractAddress}`);
  if (t.validators) parts.push(`validators ${t.validators.map((v) => nameOfAddress(standIns, v)).join(',')}`);
  return parts.length > 0 ? parts.join(', ') : 'no change';
}

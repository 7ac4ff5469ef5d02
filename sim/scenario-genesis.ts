/**
 * A scenario's cast and genesis: the keys of its validators, observers and twins, the names a
 * scenario may use for nodes and accounts, and the genesis file each node starts from (built by
 * sim/genesis-builder.ts, or an operator's base genesis with the simulated validators put in).
 */
import { bytesToHex, type Hex } from '../node/crypto/bytes.ts';
import { encodeExtraDataFromAddresses } from '../node/chain/extra-data.ts';
import { buildSimGenesis, DEFAULT_VALIDATOR_CONTRACT, type TransitionSpec } from './genesis-builder.ts';
import { BESU_TEST_ACCOUNTS, deterministicKey, validatorKeys, type NodeKey } from './keys.ts';
import { SIM_START_TIME_MS, type WorldNodeSpec } from './world.ts';
import type { Scenario, TransitionStep } from './scenario.ts';

export function resolveKeys(s: Scenario): { validators: NodeKey[]; nodes: WorldNodeSpec[]; names: Map<string, NodeKey> } {
  const validators = validatorKeys(s.validators);
  const names = new Map<string, NodeKey>();
  const nodes: WorldNodeSpec[] = [];
  validators.forEach((key, i) => {
    names.set(`v${i}`, key);
    nodes.push({ name: `v${i}`, key, minerExtraData: s.minerExtraData?.[`v${i}`] });
  });
  for (let i = 0; i < (s.observers ?? 0); i++) {
    const key = deterministicKey('observer', i);
    names.set(`o${i}`, key);
    nodes.push({ name: `o${i}`, key });
  }
  for (const twin of s.twins ?? []) {
    const key = names.get(twin);
    if (!key) throw new Error(`twins: no node named ${twin}`);
    nodes.push({ name: `${twin}-twin`, key, minerExtraData: 'twin' });
  }
  return { validators, nodes, names };
}

/** A node name, an account name (account0..2) or an address, as an address. */
export function addressOf(names: Map<string, NodeKey>, who: string): Hex {
  if (/^0x[0-9a-fA-F]{40}$/.test(who)) return who.toLowerCase() as Hex;
  const m = /^account(\d)$/.exec(who);
  if (m) return BESU_TEST_ACCOUNTS[Number(m[1])].address;
  const key = names.get(who);
  if (!key) throw new Error(`no node or account named ${who}`);
  return key.address;
}

function transitionSpecs(steps: TransitionStep[] | undefined, names: Map<string, NodeKey>): { transitions: TransitionSpec[]; contracts: Array<{ address: Hex; validators: Hex[] }> } {
  const transitions: TransitionSpec[] = [];
  const contracts: Array<{ address: Hex; validators: Hex[] }> = [];
  for (const t of steps ?? []) {
    const spec: TransitionSpec = { block: t.block };
    if (t.blockPeriodSeconds !== undefined) spec.blockperiodseconds = t.blockPeriodSeconds;
    if (t.blockReward !== undefined) spec.blockreward = t.blockReward;
    if (t.miningBeneficiary !== undefined) spec.miningbeneficiary = t.miningBeneficiary === '' ? '' : addressOf(names, t.miningBeneficiary);
    if (t.validators) spec.validators = t.validators.map((v) => addressOf(names, v));
    if (t.validatorSelectionMode) spec.validatorselectionmode = t.validatorSelectionMode;
    if (t.contractValidators) {
      const address = DEFAULT_VALIDATOR_CONTRACT;
      contracts.push({ address, validators: t.contractValidators.map((v) => addressOf(names, v)) });
      spec.validatorselectionmode = 'contract';
      spec.validatorcontractaddress = address;
    }
    transitions.push(spec);
  }
  return { transitions, contracts };
}

export function genesisFor(s: Scenario, validators: NodeKey[], names: Map<string, NodeKey>, transitionsOverride?: TransitionStep[]): Record<string, unknown> {
  const g = s.genesis ?? {};
  const { transitions, contracts } = transitionSpecs(transitionsOverride ?? g.transitions, names);
  if (s.baseGenesis) {
    const adapted = adaptBaseGenesis(s.baseGenesis, validators, g);
    if (transitionsOverride === undefined) return adapted;
    // A node restarted (or misconfigured) with transitions of its own: they replace the file's.
    if (contracts.length > 0) throw new Error('contractValidators in a restart or misconfigured transition cannot be added to a base genesis file (its alloc is the operator\'s)');
    const key = (obj: Record<string, unknown>, name: string) => Object.keys(obj).find((k) => k.toLowerCase() === name) ?? name;
    const config = adapted[key(adapted, 'config')] as Record<string, unknown>;
    config[key(config, 'transitions')] = { qbft: transitions };
    return adapted;
  }
  return buildSimGenesis({
    validators: validators.map((k) => k.address),
    startTimeSeconds: SIM_START_TIME_MS / 1000,
    blockPeriodSeconds: g.blockPeriodSeconds,
    requestTimeoutSeconds: g.requestTimeoutSeconds,
    duplicateMessageLimit: g.duplicateMessageLimit,
    epochLength: g.epochLength,
    blockReward: g.blockReward,
    miningBeneficiary: g.miningBeneficiary ? addressOf(names, g.miningBeneficiary) : undefined,
    contractMode: g.contractMode,
    transitions,
    validatorContract: contracts[0],
  });
}

/** An operator's genesis with the simulated validators and start time put in. */
function adaptBaseGenesis(base: Record<string, unknown>, validators: NodeKey[], g: NonNullable<Scenario['genesis']>): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(base)) as Record<string, unknown>;
  const key = (obj: Record<string, unknown>, name: string) => Object.keys(obj).find((k) => k.toLowerCase() === name) ?? name;
  const config = (copy[key(copy, 'config')] ??= {}) as Record<string, unknown>;
  const qbft = (config[key(config, 'qbft')] ??= {}) as Record<string, unknown>;
  if (g.blockPeriodSeconds !== undefined) qbft[key(qbft, 'blockperiodseconds')] = g.blockPeriodSeconds;
  if (g.requestTimeoutSeconds !== undefined) qbft[key(qbft, 'requesttimeoutseconds')] = g.requestTimeoutSeconds;
  const extraKey = key(copy, 'extradata');
  const contractMode = Object.keys(qbft).some((k) => k.toLowerCase() === 'validatorcontractaddress');
  if (!contractMode) copy[extraKey] = bytesToHex(encodeExtraDataFromAddresses(validators.map((k) => k.address)));
  copy[key(copy, 'timestamp')] = '0x' + (SIM_START_TIME_MS / 1000).toString(16);
  return copy;
}


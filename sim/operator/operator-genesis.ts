/**
 * An operator's own Besu genesis file as the simulator runs it. The file is parsed by the node's
 * genesis parser; its validators (extraData, or the validator contract in contract mode) are
 * stood in for one to one by simulated keys, in address order, so the i-th lowest of the
 * operator's validators is v<i> and proposes in the same turn. Wherever the file names one of those
 * validators (transitions' `validators`, `miningbeneficiary`, a validator contract's list) the
 * stand-in's address is put instead. Addresses that are not genesis validators stay as they are:
 * validators no simulated node holds, that is, offline.
 */
import { bytesToHex, type Hex } from '../../node/crypto/bytes.ts';
import { decodeExtraData, encodeExtraDataFromAddresses } from '../../node/chain/extra-data.ts';
import { GenesisError, parseGenesis, type Genesis } from '../../node/chain/genesis.ts';
import { staticValidatorContractCode } from '../genesis-builder.ts';
import { validatorKeys } from '../keys.ts';
import { SIM_START_TIME_MS } from '../world.ts';
import { contractValidatorsAtGenesis } from './contract-probe.ts';

/** A problem with an operator's input file or option: one line, exit status 2 at the command line. */
export class OperatorInputError extends Error {}

/** Scenarios run at most this many validators (validateScenario). */
export const MAX_OPERATOR_VALIDATORS = 200;

export type Json = Record<string, unknown>;

export interface StandIn {
  /** Simulated node name, v0, v1, ... */
  name: string;
  simAddress: Hex;
  /** The operator's validator it stands for. */
  operatorAddress: Hex;
}

export interface OperatorGenesis {
  /** File name (or label) for messages. */
  source: string;
  /** The file as read. */
  raw: Json;
  /** The file as the node parses it. */
  genesis: Genesis;
  selectionModeAtGenesis: 'blockheader' | 'contract';
  standIns: StandIn[];
  /** The file with stand-ins put in, genesis time set to the simulator's start: a scenario's baseGenesis. */
  simGenesis: Json;
  /** simGenesis as the node parses it. */
  simRules: Genesis;
  /** What each validator contract (genesis or transitions) lists on the genesis state, stand-ins put in. */
  contractValidators: Map<Hex, Hex[]>;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The key `name` has in `obj` in any letter case (Besu reads genesis keys case-insensitively), else `name`. */
export function keyIn(obj: Json, name: string): string {
  return Object.keys(obj).find((k) => k.toLowerCase() === name) ?? name;
}

export function fieldOf(obj: Json, name: string): unknown {
  return obj[keyIn(obj, name)];
}

/** Besu's lenient address reading: 0x optional, any case, short values left-padded. */
export function normalAddress(text: string): Hex | undefined {
  const digits = (/^0x/i.test(text) ? text.slice(2) : text).toLowerCase();
  if (!/^[0-9a-f]{1,40}$/.test(digits)) return undefined;
  return `0x${digits.padStart(40, '0')}`;
}

export function parseJsonObject(text: string, source: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new OperatorInputError(`${source}: is not valid JSON: ${(err as Error).message}`);
  }
  if (!isObject(value)) throw new OperatorInputError(`${source}: must be a JSON object (a Besu genesis file)`);
  return value;
}

export function parseRules(raw: Json, source: string): Genesis {
  try {
    return parseGenesis(raw);
  } catch (err) {
    if (err instanceof GenesisError) throw new OperatorInputError(`${source}: ${err.message}`);
    throw new OperatorInputError(`${source}: ${(err as Error).message}`);
  }
}

/** Validator contract addresses the file uses: at genesis and in transitions. */
function contractAddresses(genesis: Genesis): Hex[] {
  const all = [genesis.qbft.validatorContractAddress, ...genesis.transitions.map((t) => t.validatorContractAddress)];
  return [...new Set(all.filter((a): a is Hex => a !== undefined))];
}

function extraDataValidators(genesis: Genesis, source: string): Hex[] {
  try {
    return decodeExtraData(genesis.extraData).validators;
  } catch (err) {
    throw new OperatorInputError(`${source}: extraData is not QBFT extraData (${(err as Error).message})`);
  }
}

/**
 * Reads an operator's genesis: a QBFT genesis with its validators in extraData, or in a validator
 * contract whose code is in `alloc` (its getValidators() is called on the genesis state).
 */
export async function readOperatorGenesis(text: string, source: string): Promise<OperatorGenesis> {
  const raw = parseJsonObject(text, source);
  const genesis = parseRules(raw, source);
  if (genesis.consensus !== 'qbft') throw new OperatorInputError(`${source}: not a QBFT genesis (config has ${genesis.consensus === 'ethash' ? 'no consensus section' : `'${genesis.consensus}'`}, not 'qbft')`);
  const contractMode = genesis.qbft.validatorContractAddress !== undefined;
  const contracts = contractAddresses(genesis);
  let contractLists = new Map<Hex, Hex[]>();
  if (contracts.length > 0) {
    try {
      contractLists = await contractValidatorsAtGenesis(raw, contracts);
    } catch (err) {
      throw new OperatorInputError(`${source}: ${(err as Error).message}`);
    }
  }
  const operatorValidators = contractMode ? contractLists.get(genesis.qbft.validatorContractAddress!)! : extraDataValidators(genesis, source);
  if (operatorValidators.length === 0) throw new OperatorInputError(`${source}: ${contractMode ? 'the validator contract lists' : 'extraData lists'} no validators`);
  if (operatorValidators.length > MAX_OPERATOR_VALIDATORS) throw new OperatorInputError(`${source}: ${operatorValidators.length} validators; the simulator runs at most ${MAX_OPERATOR_VALIDATORS}`);
  const sorted = [...new Set(operatorValidators.map((a) => a.toLowerCase() as Hex))].sort();
  const keys = validatorKeys(sorted.length);
  const standIns = sorted.map((operatorAddress, i) => ({ name: `v${i}`, simAddress: keys[i].address, operatorAddress }));
  const simGenesis = withStandIns(raw, standIns, contractLists);
  const map = addressMapper(standIns);
  const contractValidators = new Map([...contractLists].map(([address, list]) => [address, list.map(map)]));
  return { source, raw, genesis, selectionModeAtGenesis: contractMode ? 'contract' : 'blockheader', standIns, simGenesis, simRules: parseRules(simGenesis, source), contractValidators };
}

/** Operator address -> stand-in address; any other address unchanged. */
export function addressMapper(standIns: readonly StandIn[]): (address: Hex) => Hex {
  const map = new Map(standIns.map((s) => [s.operatorAddress, s.simAddress]));
  return (address) => map.get(address.toLowerCase() as Hex) ?? address;
}

/** Stand-in names for operator addresses (v<i>), the address itself for others. */
export function nameOfAddress(standIns: readonly StandIn[], address: Hex): string {
  const a = address.toLowerCase();
  return standIns.find((s) => s.operatorAddress === a || s.simAddress === a)?.name ?? address;
}

/** A deep copy of a genesis file with the stand-ins put in (see the module comment). */
export function withStandIns(raw: Json, standIns: readonly StandIn[], contractLists: ReadonlyMap<Hex, Hex[]> = new Map()): Json {
  const copy = structuredClone(raw);
  const map = addressMapper(standIns);
  const mapText = (v: unknown) => {
    if (typeof v !== 'string') return v;
    const a = normalAddress(v.trim());
    return a === undefined ? v : map(a);
  };
  const config = fieldOf(copy, 'config');
  if (isObject(config)) {
    const qbft = fieldOf(config, 'qbft');
    if (isObject(qbft) && fieldOf(qbft, 'miningbeneficiary') !== undefined) qbft[keyIn(qbft, 'miningbeneficiary')] = mapText(fieldOf(qbft, 'miningbeneficiary'));
    const transitions = fieldOf(config, 'transitions');
    const list = isObject(transitions) ? fieldOf(transitions, 'qbft') : undefined;
    if (Array.isArray(list)) {
      for (const t of list) {
        if (!isObject(t)) continue;
        const validators = fieldOf(t, 'validators');
        if (Array.isArray(validators)) t[keyIn(t, 'validators')] = validators.map(mapText);
        if (fieldOf(t, 'miningbeneficiary') !== undefined) t[keyIn(t, 'miningbeneficiary')] = mapText(fieldOf(t, 'miningbeneficiary'));
      }
    }
  }
  const extraKey = keyIn(copy, 'extradata');
  const hasContractAtGenesis = isObject(config) && isObject(fieldOf(config, 'qbft')) && fieldOf(fieldOf(config, 'qbft') as Json, 'validatorcontractaddress') !== undefined;
  if (!hasContractAtGenesis) copy[extraKey] = bytesToHex(encodeExtraDataFromAddresses(standIns.map((s) => s.simAddress)));
  // A contract's list is stood in for by a static contract listing the stand-ins (its storage is dropped).
  const alloc = fieldOf(copy, 'alloc');
  if (isObject(alloc)) {
    for (const [address, validators] of contractLists) {
      const allocKey = Object.keys(alloc).find((k) => normalAddress(k) === address) ?? address.slice(2);
      alloc[allocKey] = { balance: '0x0', code: staticValidatorContractCode(validators.map(map)) };
    }
  }
  copy[keyIn(copy, 'timestamp')] = '0x' + (SIM_START_TIME_MS / 1000).toString(16);
  return copy;
}

/** The genesis with its block's time set to `seconds` (a run whose history starts before the simulator's start). */
export function withGenesisTime(g: OperatorGenesis, seconds: number): OperatorGenesis {
  const simGenesis = structuredClone(g.simGenesis);
  simGenesis[keyIn(simGenesis, 'timestamp')] = '0x' + seconds.toString(16);
  return { ...g, simGenesis, simRules: parseRules(simGenesis, g.source) };
}

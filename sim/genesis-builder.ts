/**
 * Builds Besu-format genesis JSON for simulated networks. The result goes through the node's own
 * genesis parser, exactly like a file an operator would write.
 */
import { bytesToHex, concatBytes, hexToBytes, type Hex } from '../node/crypto/bytes.ts';
import { encodeExtraDataFromAddresses } from '../node/chain/extra-data.ts';
import { BESU_TEST_ACCOUNTS } from './keys.ts';

export interface TransitionSpec {
  block: number;
  blockperiodseconds?: number;
  blockreward?: string;
  miningbeneficiary?: string;
  validatorselectionmode?: 'blockheader' | 'contract';
  validatorcontractaddress?: string;
  validators?: string[];
}

export interface SimGenesisOptions {
  validators: Hex[];
  startTimeSeconds: number;
  chainId?: number;
  blockPeriodSeconds?: number;
  requestTimeoutSeconds?: number;
  /** Besu's emptyblockperiodseconds: with no transaction waiting, blocks come this far apart (0 or unset: off). */
  emptyBlockPeriodSeconds?: number;
  /** Besu's duplicatemessagelimit (its default, 100, when unset). */
  duplicateMessageLimit?: number;
  epochLength?: number;
  blockReward?: string;
  miningBeneficiary?: string;
  /** Start in contract mode: a validator contract holding `validators` is placed in alloc. */
  contractMode?: boolean;
  transitions?: TransitionSpec[];
  /** Deploy a static validator contract at this address listing these validators. */
  validatorContract?: { address: Hex; validators: Hex[] };
  gasLimit?: bigint;
  /**
   * The newest hardfork, active from genesis: 'london' (the simulator's default, which its
   * recorded trace hashes assume), or a time fork from 'shanghai' to 'osaka' (it and every time
   * fork before it at time 0).
   */
  fork?: GenesisFork;
}

export const GENESIS_FORKS = ['london', 'shanghai', 'cancun', 'prague', 'osaka'] as const;
export type GenesisFork = (typeof GENESIS_FORKS)[number];

export const DEFAULT_VALIDATOR_CONTRACT: Hex = '0x0000000000000000000000000000000000008888';
/** A contract that emits one LOG1 (topic 0x01, empty data) on every call. */
export const LOGGER_CONTRACT: Hex = '0x0000000000000000000000000000000000004c06';
const LOGGER_CODE = '0x600160006000a100'; // PUSH1 1, PUSH1 0, PUSH1 0, LOG1, STOP

/**
 * Runtime code that answers any call with the ABI encoding of a fixed `address[]`: it copies the
 * encoded array appended after the code to memory and returns it.
 */
export function staticValidatorContractCode(validators: Hex[]): Hex {
  const word = (v: bigint) => hexToBytes(v.toString(16).padStart(64, '0'));
  const abi = concatBytes(word(32n), word(BigInt(validators.length)), ...validators.map((a) => word(BigInt(a))));
  const prefixLength = 13;
  const u16 = (n: number) => [n >> 8, n & 0xff];
  // PUSH2 size, DUP1, PUSH2 offset, PUSH1 0, CODECOPY, PUSH1 0, RETURN
  const prefix = Uint8Array.from([0x61, ...u16(abi.length), 0x80, 0x61, ...u16(prefixLength), 0x60, 0x00, 0x39, 0x60, 0x00, 0xf3]);
  return bytesToHex(concatBytes(prefix, abi));
}

export function buildSimGenesis(o: SimGenesisOptions): Record<string, unknown> {
  const qbft: Record<string, unknown> = {
    blockperiodseconds: o.blockPeriodSeconds ?? 1,
    epochlength: o.epochLength ?? 30000,
    requesttimeoutseconds: o.requestTimeoutSeconds ?? 2,
  };
  if (o.emptyBlockPeriodSeconds) qbft.emptyblockperiodseconds = o.emptyBlockPeriodSeconds;
  if (o.duplicateMessageLimit !== undefined) qbft.duplicatemessagelimit = o.duplicateMessageLimit;
  if (o.blockReward !== undefined) qbft.blockreward = o.blockReward;
  if (o.miningBeneficiary !== undefined) qbft.miningbeneficiary = o.miningBeneficiary;
  const alloc: Record<string, unknown> = {};
  for (const account of BESU_TEST_ACCOUNTS) alloc[account.address.slice(2)] = { balance: '0x' + (10n ** 24n).toString(16) };
  const contract = o.validatorContract ?? (o.contractMode ? { address: DEFAULT_VALIDATOR_CONTRACT, validators: o.validators } : undefined);
  alloc[LOGGER_CONTRACT.slice(2)] = { balance: '0x0', code: LOGGER_CODE };
  if (contract) alloc[contract.address.slice(2)] = { balance: '0x0', code: staticValidatorContractCode(contract.validators) };
  if (o.contractMode) qbft.validatorcontractaddress = contract!.address;
  const config: Record<string, unknown> = {
    chainId: o.chainId ?? 1337,
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: 0,
    petersburgBlock: 0,
    istanbulBlock: 0,
    berlinBlock: 0,
    londonBlock: 0,
    qbft,
  };
  const forkIndex = GENESIS_FORKS.indexOf(o.fork ?? 'london');
  for (const [i, key] of [[1, 'shanghaiTime'], [2, 'cancunTime'], [3, 'pragueTime'], [4, 'osakaTime']] as const) if (forkIndex >= i) config[key] = 0;
  if (o.transitions?.length) config.transitions = { qbft: o.transitions };
  return {
    config,
    nonce: '0x0',
    timestamp: '0x' + o.startTimeSeconds.toString(16),
    gasLimit: '0x' + (o.gasLimit ?? 30_000_000n).toString(16),
    difficulty: '0x1',
    mixHash: '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365',
    coinbase: '0x0000000000000000000000000000000000000000',
    extraData: bytesToHex(encodeExtraDataFromAddresses(o.contractMode ? [] : o.validators)),
    alloc,
  };
}

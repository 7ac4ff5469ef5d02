/**
 * Which validators may propose and seal each block, in either selection mode, across transitions:
 * block-header votes (tallied along the block's ancestry) or a contract's getValidators() read on
 * the parent's state. Results are cached by parent hash.
 *
 * As Besu's ForkingValidatorProvider picks the provider: for the block after a parent, the fork in
 * force at (parent number + 1, parent timestamp); for a block's own list, at (its number, its
 * timestamp). The timestamps only matter for time-typed transitions (fork-schedule.ts). In contract
 * mode a transition's `validators` list is ignored (TransactionValidatorProvider reads only the
 * contract); in block-header mode it overrides the tally by block number, even for a time-typed
 * transition, where it therefore never applies (BftValidatorOverrides is keyed by block number).
 */
import { hexToBytes, type Hex } from './crypto/bytes.ts';
import type { ChainEntry } from './chain/chain.ts';
import type { QbftForkSchedule } from './chain/fork-schedule.ts';
import { BlockHeaderValidators, type ChainHeaderInfo } from './consensus/qbft/validators/header-validator-provider.ts';
import type { VoteTally } from './consensus/qbft/validators/vote-tally.ts';
import { CURRENT_BESU, type BesuHooks } from './bugs/hooks.ts';

export const GET_VALIDATORS_SELECTOR = hexToBytes('0xb7ab4db5');

export interface ContractCaller {
  /** Runs a read-only call on the state after `entry`; returns the raw return data. */
  callAt(entry: ChainEntry, to: Hex, data: Uint8Array): Promise<Uint8Array>;
}

/** Decodes the ABI encoding of a single `address[]` return value. */
export function decodeAddressArray(data: Uint8Array): Hex[] {
  const word = (i: number): bigint => {
    const start = i * 32;
    if (start + 32 > data.length) throw new Error('getValidators() returned truncated data');
    let v = 0n;
    for (let j = start; j < start + 32; j++) v = (v << 8n) | BigInt(data[j]);
    return v;
  };
  const offset = word(0);
  if (offset % 32n !== 0n || offset > BigInt(data.length)) throw new Error('getValidators() returned a bad offset');
  const base = Number(offset / 32n);
  const length = word(base);
  if (length > 10_000n) throw new Error('getValidators() returned too many validators');
  const out: Hex[] = [];
  for (let i = 0; i < Number(length); i++) {
    const v = word(base + 1 + i);
    if (v >> 160n !== 0n) throw new Error('getValidators() returned a value that is not an address');
    out.push(('0x' + v.toString(16).padStart(40, '0')) as Hex);
  }
  return out;
}

function headerInfo(e: ChainEntry): ChainHeaderInfo {
  return { number: e.number, hash: e.hash, parentHash: e.parentHash, coinbase: e.coinbase, validators: e.extra.validators, vote: e.extra.vote };
}

export class ValidatorSets {
  private readonly headerMode: BlockHeaderValidators;
  private readonly contractCache = new Map<Hex, Hex[]>();

  constructor(
    private readonly schedule: QbftForkSchedule,
    genesisValidators: Hex[],
    epochLength: number,
    private readonly lookup: (hash: Hex) => ChainEntry | undefined,
    private readonly caller: ContractCaller,
    private readonly hooks: BesuHooks = CURRENT_BESU,
  ) {
    this.headerMode = new BlockHeaderValidators({
      epochLength,
      genesisValidators,
      overrideAt: (n) => schedule.transitionAt(n)?.validators,
      getHeader: (hash) => {
        const e = lookup(hash as Hex);
        return e ? headerInfo(e) : undefined;
      },
    });
  }

  /** Contract mode at this block; pass the timestamp that decides a time-typed transition (see the header comment). */
  isContractModeAt(blockNumber: number, timestamp?: number): boolean {
    return this.schedule.paramsAt(blockNumber, timestamp).validatorSelectionMode === 'contract';
  }

  /** The validators for the block after `parent`, sorted ascending. */
  async forChildOf(parent: ChainEntry): Promise<Hex[]> {
    if (this.hooks.validatorsFromParentFork) return this.forChildOfAtParentFork(parent);
    const n = parent.number + 1;
    const params = this.schedule.paramsAt(n, parent.timestamp);
    if (params.validatorSelectionMode !== 'contract') return this.headerMode.afterBlock(headerInfo(parent));
    const cached = this.contractCache.get(parent.hash);
    if (cached) return cached;
    if (!params.validatorContractAddress) throw new Error(`contract validator selection at block ${n} has no contract address`);
    const result = decodeAddressArray(await this.caller.callAt(parent, params.validatorContractAddress, GET_VALIDATORS_SELECTOR)).sort();
    if (this.contractCache.size >= 1024) this.contractCache.delete(this.contractCache.keys().next().value as Hex);
    this.contractCache.set(parent.hash, result);
    return result;
  }

  /**
   * besu-2901: before Besu PR #2935 the validators after a block came from the provider (and the
   * contract address) of the fork in force at that block's own number, not at the next block's, so
   * a validator-selection-mode transition took effect one block late. Its special case for the
   * first block-header-mode block (the validators the previous provider gives for the block
   * before it) was checked at the parent's number too, against the latest mode transition.
   */
  private async forChildOfAtParentFork(parent: ChainEntry): Promise<Hex[]> {
    const params = this.schedule.paramsAt(parent.number, parent.timestamp);
    if (params.validatorSelectionMode !== 'contract') {
      const grandparent = parent.number > 0 && parent.number === this.lastModeTransitionAt(parent.number) ? this.lookup(parent.parentHash) : undefined;
      return grandparent ? this.ofBlock(grandparent) : this.headerMode.afterBlock(headerInfo(parent));
    }
    if (!params.validatorContractAddress) throw new Error(`contract validator selection at block ${parent.number} has no contract address`);
    return decodeAddressArray(await this.caller.callAt(parent, params.validatorContractAddress, GET_VALIDATORS_SELECTOR)).sort();
  }

  /** The block of the latest transition at or below `blockNumber` that names a validator selection mode (0: the genesis). */
  private lastModeTransitionAt(blockNumber: number): number {
    let block = 0;
    for (const fork of this.schedule.forks()) {
      if (fork.fromBlock <= blockNumber && this.schedule.transitionAt(fork.fromBlock)?.validatorSelectionMode !== undefined) block = Math.max(block, fork.fromBlock);
    }
    return block;
  }

  /** The vote tally after `entry` (block-header mode), for choosing which vote to cast next. */
  tallyAfter(entry: ChainEntry): VoteTally {
    return this.headerMode.tallyAfterBlock(headerInfo(entry));
  }

  /** Validators listed for a block: header mode its extraData list; contract mode the call on its own state. */
  async ofBlock(entry: ChainEntry): Promise<Hex[]> {
    if (entry.number === 0 || !this.isContractModeAt(entry.number, entry.timestamp)) {
      if (entry.number === 0 && entry.extra.validators.length === 0 && this.isContractModeAt(0, entry.timestamp)) return this.forChildOfContractState(entry);
      return [...entry.extra.validators].sort();
    }
    return this.forChildOfContractState(entry);
  }

  private async forChildOfContractState(entry: ChainEntry): Promise<Hex[]> {
    const address = this.schedule.paramsAt(entry.number, entry.timestamp).validatorContractAddress;
    if (!address) return [];
    return decodeAddressArray(await this.caller.callAt(entry, address, GET_VALIDATORS_SELECTOR)).sort();
  }
}


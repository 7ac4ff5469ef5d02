/**
 * What one transaction changed in the state, for Besu's "stateDiff" trace type (besu: ethereum/api/
 * .../results/tracing/diff/StateTraceGenerator.java; snapshot 3fd224e2; the JSON form is
 * rpc/methods/support/state-diff.ts).
 *
 * Besu compares the accounts its transaction updater touched with the state before the
 * transaction. Here the simulator's state manager is watched instead: the first write to an
 * account, a code or a storage slot during the transaction records the value before it, and the
 * value after is read when the transaction has finished (refunds, fees, deletions included).
 */
import type { Account, Address } from '@ethereumjs/util';
import { bytesToHex, type Hex } from '../../crypto/bytes.ts';

/** An account's fields as the diff reports them. */
export interface AccountState {
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
}

/** One account a transaction wrote: before and after (undefined: the account does not exist). */
export interface AccountChange {
  address: Hex;
  pre?: AccountState;
  post?: AccountState;
  /** Every slot written, with its value before and after. */
  storage: Array<{ key: Hex; pre: bigint; post: bigint }>;
}

/** The state-manager methods the recorder watches and reads (MerkleStateManager has them all). */
export interface WatchedState {
  getAccount(address: Address): Promise<Account | undefined>;
  getCode(address: Address): Promise<Uint8Array>;
  getStorage(address: Address, key: Uint8Array): Promise<Uint8Array>;
  putAccount(address: Address, account: Account | undefined): Promise<void>;
  deleteAccount(address: Address): Promise<void>;
  putCode(address: Address, code: Uint8Array): Promise<void>;
  putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void>;
  clearStorage(address: Address): Promise<void>;
}

const WRITES = ['putAccount', 'deleteAccount', 'putCode', 'clearStorage'] as const;

function toBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(bytesToHex(bytes));
}

/**
 * Records the state before the first write of each account and slot while attached. One
 * transaction at a time: `changes()` reads the state after and starts afresh.
 */
export class StateChangeRecorder {
  private accounts = new Map<Hex, { address: Address; pre?: AccountState }>();
  private slots = new Map<Hex, Map<Hex, { key: Uint8Array; pre: bigint }>>();

  constructor(private readonly state: WatchedState) {}

  private async read(address: Address): Promise<AccountState | undefined> {
    const account = await this.state.getAccount(address);
    if (account === undefined) return undefined;
    return { balance: account.balance, nonce: account.nonce, code: (await this.state.getCode(address)).slice() };
  }

  private async notePre(address: Address): Promise<void> {
    const key = address.toString().toLowerCase() as Hex;
    if (this.accounts.has(key)) return;
    this.accounts.set(key, { address, pre: undefined });
    this.accounts.get(key)!.pre = await this.read(address);
  }

  private async notePreSlot(address: Address, slot: Uint8Array): Promise<void> {
    const key = address.toString().toLowerCase() as Hex;
    let slots = this.slots.get(key);
    if (!slots) this.slots.set(key, (slots = new Map()));
    const slotHex = bytesToHex(slot);
    if (slots.has(slotHex)) return;
    const exists = (await this.state.getAccount(address)) !== undefined;
    slots.set(slotHex, { key: slot.slice(), pre: exists ? toBigInt(await this.state.getStorage(address, slot)) : 0n });
  }

  /** Watches the state's writes; the returned function stops watching. */
  attach(): () => void {
    const state = this.state as unknown as Record<string, unknown>;
    const saved = new Map<string, PropertyDescriptor | undefined>();
    for (const name of [...WRITES, 'putStorage']) saved.set(name, Object.getOwnPropertyDescriptor(state, name));
    for (const name of WRITES) {
      const original = (state[name] as (...args: unknown[]) => Promise<void>).bind(this.state);
      state[name] = async (address: Address, ...rest: unknown[]) => {
        await this.notePre(address);
        return original(address, ...rest);
      };
    }
    const putStorage = this.state.putStorage.bind(this.state);
    state.putStorage = async (address: Address, slot: Uint8Array, value: Uint8Array) => {
      await this.notePre(address);
      await this.notePreSlot(address, slot);
      return putStorage(address, slot, value);
    };
    return () => {
      for (const [name, descriptor] of saved) {
        if (descriptor) Object.defineProperty(state, name, descriptor);
        else delete state[name];
      }
    };
  }

  /** The accounts written since the last call, with their state now; then forgets them. */
  async changes(): Promise<AccountChange[]> {
    const out: AccountChange[] = [];
    for (const [key, { address, pre }] of this.accounts) {
      const post = await this.read(address);
      const storage: AccountChange['storage'] = [];
      for (const [slotHex, slot] of this.slots.get(key) ?? []) {
        const now = post ? toBigInt(await this.state.getStorage(address, slot.key)) : 0n;
        storage.push({ key: `0x${slotHex.slice(2).padStart(64, '0')}`, pre: slot.pre, post: now });
      }
      out.push({ address: key, pre, post, storage });
    }
    this.accounts = new Map();
    this.slots = new Map();
    return out;
  }
}

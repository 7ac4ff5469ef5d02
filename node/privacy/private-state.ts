/**
 * Private states: one world state per privacy group, changed only by the group's private
 * transactions, in the order of their privacy marker transactions on the public chain (Besu's
 * PrivacyPrecompiledContract). A member that holds a marker's payload executes the private
 * transaction on its group's state as of the marker's place in the chain; a non-member holds no
 * payload and its private states never change.
 *
 * As in Besu: the private transaction pays no gas (its gas limit only bounds execution), may not
 * carry value, and must have the sender's private nonce; an invalid one changes nothing and gets a
 * receipt with status 0x0. Group roots and receipts are kept per block (copy on write), so a
 * reorganization runs the new branch's private transactions on the right states, and a block that
 * becomes canonical again gets its receipts back. A block whose parent was not processed here is
 * refused (never run on a guessed state). Bounded: the last `maxBlocks` blocks and the last
 * `maxReceipts` markers. The node persists the states of each new head (privacy-store.ts) and, after
 * a restart, resumes from them (`restoreAt`).
 */
import { createBlockHeader, Block, type BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, KECCAK256_RLP, createAddressFromString } from '@ethereumjs/util';
import { createVM, type VM } from '@ethereumjs/vm';
import { Mutex } from '../collections/mutex.ts';
import { equalBytes, type Hex } from '../crypto/bytes.ts';
import { TrieNodeStore, type NewNodes } from '../execution/state-db.ts';
import { intrinsicGas } from '../execution/intrinsic-gas.ts';
import { decodingCommon } from '../chain/decoding-common.ts';
import { stateManagerOn, warmCallParties, withNodeCrypto } from '../execution/vm-state.ts';
import type { PrivateTransaction } from './private-transaction.ts';

export type PrivateLog = [address: Uint8Array, topics: Uint8Array[], data: Uint8Array];

export interface PrivateReceipt {
  /** The privacy marker transaction's hash (Besu's commitmentHash). */
  commitmentHash: Hex;
  blockHash: Hex;
  blockNumber: number;
  /** The marker's index in its block. */
  transactionIndex: number;
  privacyGroupId: string;
  tx: PrivateTransaction;
  status: 0 | 1;
  output: Uint8Array;
  logs: PrivateLog[];
  contractAddress?: Hex;
  revertReason?: Uint8Array;
}

/** One privacy marker of a block whose payload this node holds. */
export interface PrivateWork {
  commitmentHash: Hex;
  transactionIndex: number;
  privacyGroupId: string;
  tx: PrivateTransaction;
}

type GroupRoots = ReadonlyMap<string, Uint8Array>;

const NO_ROOTS: GroupRoots = new Map();

export class PrivateStates {
  private readonly store = new TrieNodeStore();
  private readonly rootsAtBlock = new Map<Hex, GroupRoots>();
  /** Each processed block's private receipts, so a block that becomes canonical again gets them back. */
  private readonly receiptsAtBlock = new Map<Hex, PrivateReceipt[]>();
  /** The receipt of each marker in the canonical chain as last processed. */
  private readonly receipts = new Map<Hex, PrivateReceipt>();
  /** Block processing and reads (priv_call, priv_getCode) each have a VM of their own, so a slow read never holds up blocks. */
  private readonly mutex = new Mutex();
  private readonly readMutex = new Mutex();
  private vmPromise?: Promise<{ vm: VM; sm: MerkleStateManager }>;
  private readVmPromise?: Promise<{ vm: VM; sm: MerkleStateManager }>;

  constructor(
    private readonly common: Common,
    private readonly limits = { maxBlocks: 65_536, maxReceipts: 100_000 },
  ) {}

  /**
   * Runs a canonical block's private transactions (those this node holds) on the group states of
   * its parent. Blocks must come parent first; a block already run is skipped.
   */
  processBlock(header: BlockHeader, blockHash: Hex, parentHash: Hex, work: readonly PrivateWork[]): Promise<PrivateReceipt[]> {
    return this.mutex.run(async () => {
      const done = this.receiptsAtBlock.get(blockHash);
      if (this.rootsAtBlock.has(blockHash) && done) {
        for (const r of done) this.keepReceipt(r);
        return done;
      }
      const parentRoots = this.rootsAtBlock.get(parentHash);
      if (parentRoots === undefined) throw new Error(`private states of parent ${parentHash} are unknown (not processed here, or evicted)`);
      if (work.length === 0) {
        this.keepRoots(blockHash, parentRoots, []);
        return [];
      }
      const roots = new Map(parentRoots);
      const out: PrivateReceipt[] = [];
      for (const w of work) {
        const root = roots.get(w.privacyGroupId) ?? KECCAK256_RLP;
        const { receipt, stateRoot } = await this.execute(header, root, w);
        roots.set(w.privacyGroupId, stateRoot);
        const full: PrivateReceipt = { ...receipt, commitmentHash: w.commitmentHash, blockHash, blockNumber: Number(header.number), transactionIndex: w.transactionIndex, privacyGroupId: w.privacyGroupId, tx: w.tx };
        this.keepReceipt(full);
        out.push(full);
      }
      this.keepRoots(blockHash, roots, out);
      return out;
    });
  }

  receipt(commitmentHash: Hex): PrivateReceipt | undefined {
    return this.receipts.get(commitmentHash.toLowerCase() as Hex);
  }

  /** The group's state root after `blockHash` (the empty root before its first transaction). */
  rootAt(blockHash: Hex, privacyGroupId: string): Uint8Array | undefined {
    const roots = this.rootsAtBlock.get(blockHash);
    if (!roots) return undefined;
    return roots.get(privacyGroupId) ?? KECCAK256_RLP;
  }

  /** Genesis (or any block without private history) starts every group empty. */
  markBase(blockHash: Hex): void {
    if (!this.rootsAtBlock.has(blockHash)) this.keepRoots(blockHash, NO_ROOTS, []);
  }

  /** Whether a block's private states are known here. */
  has(blockHash: Hex): boolean {
    return this.rootsAtBlock.has(blockHash);
  }

  /** Every group's root after `blockHash` (groups without a private transaction yet are absent). */
  rootsAt(blockHash: Hex): GroupRoots | undefined {
    return this.rootsAtBlock.get(blockHash);
  }

  /** The private receipts of a block processed here. */
  receiptsAt(blockHash: Hex): readonly PrivateReceipt[] | undefined {
    return this.receiptsAtBlock.get(blockHash);
  }

  /** The trie nodes a copy holding `base` lacks for `root` (what persistence writes). */
  nodesNewSince(root: Uint8Array, base?: Uint8Array): NewNodes {
    return this.store.nodesNewSince(root, base);
  }

  /** Puts persisted trie nodes back. */
  loadNodes(entries: Iterable<readonly [string, Uint8Array]>): void {
    this.store.load(entries);
  }

  /** Whether every node under the roots is here. */
  whole(roots: Iterable<Uint8Array>): boolean {
    return this.store.reachable(roots).missing === 0;
  }

  /** After a restart: the group roots (and receipts) a persisted block left, so processing resumes from it. */
  restoreAt(blockHash: Hex, roots: ReadonlyMap<string, Uint8Array>, receipts: PrivateReceipt[]): void {
    this.keepRoots(blockHash, new Map(roots), receipts);
    for (const r of receipts) this.keepReceipt(r);
  }

  account(root: Uint8Array, address: Hex): Promise<{ nonce: bigint; code: Uint8Array }> {
    return this.readMutex.run(async () => {
      const { sm } = await this.readVm();
      await sm.setStateRoot(root, true);
      const a = createAddressFromString(address);
      const account = await sm.getAccount(a);
      return { nonce: account?.nonce ?? 0n, code: account ? await sm.getCode(a) : new Uint8Array(0) };
    });
  }

  /** priv_call: runs a call on a group state and discards its changes. */
  call(header: BlockHeader, root: Uint8Array, from: Hex, to: Hex, data: Uint8Array, gasLimit: bigint): Promise<{ output: Uint8Array; error?: string }> {
    return this.readMutex.run(async () => {
      const { vm, sm } = await this.readVm();
      await sm.setStateRoot(root, true);
      vm.common.setHardforkBy({ blockNumber: header.number, timestamp: header.timestamp });
      await vm.evm.journal.checkpoint();
      try {
        warmCallParties(vm, from, to);
        const res = await vm.evm.runCall({ block: this.context(header), caller: createAddressFromString(from), origin: createAddressFromString(from), to: createAddressFromString(to), data, value: 0n, gasPrice: 0n, gasLimit });
        return { output: res.execResult.returnValue, error: res.execResult.exceptionError?.error };
      } finally {
        await vm.evm.journal.revert();
        vm.evm.journal.cleanJournal();
      }
    });
  }

  private async execute(header: BlockHeader, root: Uint8Array, w: PrivateWork): Promise<{ receipt: Pick<PrivateReceipt, 'status' | 'output' | 'logs' | 'contractAddress' | 'revertReason'>; stateRoot: Uint8Array }> {
    const { vm, sm } = await this.vm();
    await sm.setStateRoot(root, true);
    const { tx } = w;
    const sender = createAddressFromString(tx.sender);
    const account = (await sm.getAccount(sender)) ?? new Account();
    vm.common.setHardforkBy({ blockNumber: header.number, timestamp: header.timestamp });
    const intrinsic = intrinsicGas(vm.common, tx.data, tx.to === undefined);
    const invalid = tx.value !== 0n || tx.nonce !== account.nonce || tx.gasLimit < intrinsic;
    if (invalid) return { receipt: { status: 0, output: new Uint8Array(0), logs: [] }, stateRoot: root };
    await vm.evm.journal.checkpoint();
    let res;
    try {
      warmCallParties(vm, tx.sender, tx.to);
      res = await vm.evm.runCall({
        block: this.context(header),
        caller: sender,
        origin: sender,
        to: tx.to ? createAddressFromString(tx.to) : undefined,
        data: tx.data,
        value: 0n,
        gasPrice: 0n,
        gasLimit: tx.gasLimit - intrinsic,
      });
    } catch (e) {
      await vm.evm.journal.revert();
      vm.evm.journal.cleanJournal();
      throw e;
    }
    await vm.evm.journal.commit();
    await vm.evm.journal.cleanup();
    const stateRoot = await sm.getStateRoot();
    const ex = res.execResult;
    const error = ex.exceptionError?.error;
    return {
      receipt: {
        status: error === undefined ? 1 : 0,
        output: error === undefined || error === 'revert' ? ex.returnValue : new Uint8Array(0),
        logs: error === undefined ? ((ex.logs ?? []) as PrivateLog[]) : [],
        contractAddress: tx.to === undefined && error === undefined && res.createdAddress ? (res.createdAddress.toString().toLowerCase() as Hex) : undefined,
        revertReason: error === 'revert' ? ex.returnValue : undefined,
      },
      stateRoot: equalBytes(stateRoot, root) ? root : stateRoot,
    };
  }

  private context(header: BlockHeader): Block {
    const c = decodingCommon(this.common, { blockNumber: header.number, timestamp: header.timestamp });
    const h = createBlockHeader(
      { number: header.number, timestamp: header.timestamp, gasLimit: header.gasLimit, coinbase: header.coinbase, difficulty: header.difficulty, mixHash: header.mixHash, baseFeePerGas: header.baseFeePerGas },
      { common: c, skipConsensusFormatValidation: true },
    );
    return new Block(h, [], [], undefined, { common: c, skipConsensusFormatValidation: true });
  }

  private vm(): Promise<{ vm: VM; sm: MerkleStateManager }> {
    this.vmPromise ??= this.makeVm();
    return this.vmPromise;
  }

  private readVm(): Promise<{ vm: VM; sm: MerkleStateManager }> {
    this.readVmPromise ??= this.makeVm();
    return this.readVmPromise;
  }

  private makeVm(): Promise<{ vm: VM; sm: MerkleStateManager }> {
    return (async () => {
      const common = withNodeCrypto(this.common.copy());
      const sm = stateManagerOn(common, this.store);
      const vm = await createVM({ common, stateManager: sm });
      return { vm, sm };
    })();
  }

  private keepRoots(blockHash: Hex, roots: GroupRoots, receipts: PrivateReceipt[]): void {
    if (this.rootsAtBlock.size >= this.limits.maxBlocks) {
      const oldest = this.rootsAtBlock.keys().next().value as Hex;
      this.rootsAtBlock.delete(oldest);
      this.receiptsAtBlock.delete(oldest);
    }
    this.rootsAtBlock.set(blockHash, roots);
    this.receiptsAtBlock.set(blockHash, receipts);
  }

  private keepReceipt(r: PrivateReceipt): void {
    this.receipts.delete(r.commitmentHash);
    if (this.receipts.size >= this.limits.maxReceipts) this.receipts.delete(this.receipts.keys().next().value as Hex);
    this.receipts.set(r.commitmentHash, r);
  }
}


/**
 * Besu's TransactionSimulator for eth_call, eth_estimateGas, eth_createAccessList, eth_getProof,
 * eth_simulateV1 and the trace and debug methods (besu: ethereum/core/.../transaction/
 * TransactionSimulator.java; snapshot 3fd224e2): one VM over the engine's trie node store, used
 * one job at a time.
 *
 * Every job runs on a copy of a block's state: the state manager is positioned at the block's
 * state root inside a journal checkpoint that is reverted afterwards, so nothing a call writes
 * stays (only eth_simulateV1's state roots write nodes, content-addressed ones the pruner sweeps,
 * or a worker's overlay drops). The calls themselves run in call-runner.ts, re-executions in
 * replay.ts, eth_simulateV1's blocks in block-simulator.ts.
 */
import { getMerkleStateProof, type MerkleStateManager } from '@ethereumjs/statemanager';
import type { Common } from '@ethereumjs/common';
import { createAddressFromString, type DB } from '@ethereumjs/util';
import { createVM, type VM } from '@ethereumjs/vm';
import { Mutex } from '../../collections/mutex.ts';
import { bytesToHex, type Hex } from '../../crypto/bytes.ts';
import { withBlockParams } from '../blob-fees.ts';
import type { TrieNodeStore } from '../state-db.ts';
import { stateManagerOn, withNodeCrypto } from '../vm-state.ts';
import { simulateBlocksOn, type SimulateBlocksRequest, type SimulateBlocksResult } from './block-simulator.ts';
import type { CallBlockContext, CallOptions, CallOutcome, CallRequest, HashLookup } from './call-types.ts';
import { runCall } from './call-runner.ts';
import { replayBlocksOn, type ReplayBlock, type ReplayOptions } from './replay.ts';

/**
 * The node store the simulator reads state from: the engine's TrieNodeStore in the node's own
 * thread, or a worker's copy that fetches nodes from it (rpc/off-loop/remote-node-store.ts).
 */
export type SimulatorStore = DB<string, string | Uint8Array> & Pick<TrieNodeStore, 'hasRoot' | 'beginWork' | 'endWork'>;

/** What the RPC methods call on a simulator, here or in a worker (rpc/off-loop/worker-simulator.ts). */
export type SimulatorPort = Pick<TransactionSimulator, 'hasState' | 'simulate' | 'replayBlocks' | 'proof' | 'simulateBlocks'>;

const ZERO32 = new Uint8Array(32);

export class TransactionSimulator {
  private vm?: VM;
  private sm?: MerkleStateManager;
  private common?: Common;
  private readonly mutex = new Mutex();
  /** BLOCKHASH answers: the blocks an eth_simulateV1 run made, the parent, then the chain. */
  private readonly chainLookup: { parent?: { number: bigint; hash: Uint8Array }; simulated?: Map<bigint, Uint8Array> } = {};

  constructor(
    private readonly baseCommon: Common,
    private readonly store: SimulatorStore,
    private readonly hashes: HashLookup,
  ) {}

  private async ensureVm(): Promise<{ vm: VM; sm: MerkleStateManager; common: Common }> {
    if (this.vm && this.sm && this.common) return { vm: this.vm, sm: this.sm, common: this.common };
    const common = withNodeCrypto(withBlockParams(this.baseCommon));
    const sm = stateManagerOn(common, this.store);
    const lookup = this.chainLookup;
    const hashes = this.hashes;
    const blockchain = {
      async getBlock(n: number) {
        const num = BigInt(n);
        const simulated = lookup.simulated?.get(num);
        const h = simulated ?? (lookup.parent && lookup.parent.number === num ? lookup.parent.hash : ((await hashes(num)) ?? ZERO32));
        return { hash: () => h };
      },
      async putBlock() {},
      shallowCopy() {
        return blockchain;
      },
    };
    const vm = await createVM({ common, stateManager: sm, blockchain: blockchain as never });
    this.vm = vm;
    this.sm = sm;
    this.common = common;
    return { vm, sm, common };
  }

  /** True when the state is still available (retained by the engine, or not yet swept). */
  hasState(root: Uint8Array): boolean {
    return this.store.hasRoot(root);
  }

  /** Runs `fn` with the simulator's state manager positioned at `root` (changes are reverted). */
  withState<T>(root: Uint8Array, number: bigint, timestamp: bigint, fn: (sm: MerkleStateManager, vm: VM) => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      const { vm, sm, common } = await this.ensureVm();
      common.setHardforkBy({ blockNumber: number, timestamp });
      if (!this.store.hasRoot(root)) throw new Error(`state ${bytesToHex(root)} is not available`);
      this.store.beginWork();
      try {
        await sm.setStateRoot(root, true);
        await vm.evm.journal.checkpoint();
        try {
          return await fn(sm, vm);
        } finally {
          await vm.evm.journal.revert();
          vm.evm.journal.cleanJournal();
        }
      } finally {
        this.store.endWork();
      }
    });
  }

  /**
   * eth_simulateV1's blocks on the base block's state (block-simulator.ts): plain data in and out.
   * Their state roots are computed inside the run's checkpoint, so nothing stays behind.
   */
  simulateBlocks(req: SimulateBlocksRequest): Promise<SimulateBlocksResult> {
    const first = req.blocks[0]?.overrides ?? { number: req.base.number, timestamp: req.base.timestamp };
    return this.withState(req.base.stateRoot, first.number, first.timestamp, async (sm, vm) => {
      const simulatedHashes = new Map<bigint, Uint8Array>([[req.base.number, req.base.hash]]);
      this.chainLookup.simulated = simulatedHashes;
      this.chainLookup.parent = undefined;
      try {
        return await simulateBlocksOn({ vm, sm, simulatedHashes }, req);
      } finally {
        this.chainLookup.simulated = undefined;
      }
    });
  }

  /** EIP-1186 proof of an account and storage slots at `root` (Besu eth_getProof). */
  proof(root: Uint8Array, number: bigint, timestamp: bigint, address: Hex, slots: Uint8Array[]) {
    return this.withState(root, number, timestamp, async (sm) => getMerkleStateProof(sm, createAddressFromString(address), slots));
  }

  /** Runs the call `req` in block `b` with at most `gasLimit` gas (Besu TransactionSimulator.process). */
  simulate(b: CallBlockContext, req: CallRequest, gasLimit: bigint, opts: CallOptions): Promise<CallOutcome> {
    return this.withState(b.stateRoot, b.number, b.timestamp, async (sm, vm) => {
      this.chainLookup.parent = b.number > 0n ? { number: b.number - 1n, hash: b.parentHash } : undefined;
      return runCall(vm, sm, b, req, gasLimit, opts);
    });
  }

  /**
   * Re-executes consecutive blocks on `parentRoot` (the first block's parent state), tracing the
   * wanted transactions (replay.ts).
   */
  replayBlocks(parentRoot: Uint8Array, blocks: readonly ReplayBlock[], opts: ReplayOptions): Promise<void> {
    const first = blocks[0]?.header;
    if (!first) return Promise.resolve();
    return this.withState(parentRoot, first.number, first.timestamp, (sm, vm) => replayBlocksOn(vm, sm, parentRoot, blocks, opts, this.chainLookup));
  }
}

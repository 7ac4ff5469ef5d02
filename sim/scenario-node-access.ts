/**
 * Every place the scenario runner reaches into a running node object; the rest of a run is
 * judged from its trace (sim/run-model/). Here: the steps that drive a node through its own API
 * (JSON-RPC, its vote queue, transaction submission), the held-state samples the bounded-state
 * checker needs, the reads of a reference node's chain and state that a few expectations need,
 * and the per-node lines of the run's result.
 */
import type { Common } from '@ethereumjs/common';
import type { Hex } from '../node/crypto/bytes.ts';
import type { QbftNode } from '../node/node.ts';
import type { StateSample } from './checkers/observation.ts';
import { rpcClientFor } from './node-rpc-client.ts';
import type { World } from './world.ts';

/** The node `name` runs, if it does. */
function running(world: World, name: string): QbftNode | undefined {
  return world.get(name).node;
}

/** A JSON-RPC client of the running node `name` whose calls go to the trace; undefined when it is down. */
export function rpcClientOf(world: World, name: string): { request(method: string, params: unknown[]): Promise<unknown> } | undefined {
  const node = running(world, name);
  return node && rpcClientFor(node, (e) => world.trace.record(world.kernel.nowMs(), name, e));
}

/** The vote queue of the running node `name` (what clique_propose / qbft_proposeValidatorVote fill). */
export function voteQueueOf(world: World, name: string): { auth(address: Hex, add: boolean): void; discard(address: Hex): void } | undefined {
  const node = running(world, name);
  return node && { auth: (address, add) => node.proposeVote(address, add), discard: (address) => node.discardVote(address) };
}

export interface TransactionTarget {
  chainId: bigint;
  common: Common;
  submit(raw: Uint8Array): ReturnType<QbftNode['submitTransaction']>;
}

/** Where a transfer step submits: the node `name`, else the first running node; undefined when none runs. */
export function transactionTarget(world: World, name: string | undefined): TransactionTarget | undefined {
  const target = name ? world.get(name) : [...world.nodes.values()].find((n) => n.status === 'up' && n.node);
  const node = target?.node;
  if (!target || !node) return undefined;
  return { chainId: target.genesis.chainId, common: node.common, submit: (raw) => node.submitTransaction(raw) };
}

/** What each running node's current height holds per round (the bounded-state checker's one reading of node internals). */
export function heldStates(world: World, atMs: number): StateSample[] {
  const out: StateSample[] = [];
  for (const name of world.names()) {
    const sim = world.get(name);
    const held = sim.status === 'up' ? sim.node?.heldConsensusState() : undefined;
    if (!held) continue;
    out.push({ type: 'state-sample', atMs, node: name, height: sim.node!.consensusStats()!.height, ...held });
  }
  return out;
}

/** Reads of one node's chain and state, for the expectations the trace cannot answer. */
export interface ChainReads {
  /** The validators its chain names for block `block` (from the canonical parent); undefined when it has no such parent. */
  validatorsFor(block: number): Promise<Hex[]> | undefined;
  /** The balance of `address` in the state of its head (0 for an account it does not hold). */
  balanceOf(address: Hex): Promise<bigint>;
  /** Transactions in its canonical chain. */
  transactionsIncluded(): number;
  /** Whether the node `name` runs a chain that left this one: a different block at some height, or 4+ blocks behind. */
  forkedOff(name: string): boolean;
}

/** Chain reads of the running node `reference`; undefined when it does not run. */
export function chainReadsOf(world: World, reference: string | undefined): ChainReads | undefined {
  const ref = reference === undefined ? undefined : running(world, reference);
  if (!ref) return undefined;
  return {
    validatorsFor(block) {
      const parent = ref.blockAt(block - 1);
      return parent ? ref.validatorsAfter(parent) : undefined;
    },
    async balanceOf(address) {
      const account = await ref.account(ref.head().block.header.stateRoot, address);
      return account?.balance ?? 0n;
    },
    transactionsIncluded() {
      let count = 0;
      for (let i = 1; i <= ref.head().number; i++) count += ref.blockAt(i)!.block.transactions.length;
      return count;
    },
    forkedOff(name) {
      const node = running(world, name);
      if (!node) return false;
      const h = Math.min(node.head().number, ref.head().number);
      for (let i = 1; i <= h; i++) if (node.blockAt(i)!.hash !== ref.blockAt(i)!.hash) return true;
      return node.head().number + 3 < ref.head().number;
    },
  };
}

export interface NodeReport {
  name: string;
  address: Hex;
  height: number;
  head: Hex | null;
  status: 'up' | 'crashed';
}

/** Each node's head and status as the run ends. */
export function nodeReports(world: World): NodeReport[] {
  return world.names().map((name) => {
    const sim = world.get(name);
    const head = sim.node?.head();
    return { name, address: sim.key.address, height: head?.number ?? -1, head: head?.hash ?? null, status: sim.status };
  });
}

/**
 * The scenario steps: for each kind, how it is applied to the world at its virtual time, and
 * whether it is a fault (liveness is owed only once the last fault step has run).
 */
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { parseGenesis } from '../node/chain/genesis.ts';
import type { ApiClientsRun } from './api-clients.ts';
import { LOGGER_CONTRACT } from './genesis-builder.ts';
import { BESU_TEST_ACCOUNTS, type NodeKey } from './keys.ts';
import type { PrivacyRun } from './privacy-run.ts';
import type { Step, TransitionStep } from './scenario.ts';
import { addressOf } from './scenario-genesis.ts';
import { rpcClientOf, transactionTarget, voteQueueOf } from './scenario-node-access.ts';
import type { World } from './world.ts';

/** A custom scenario step: runs at its virtual time with the world and the step's `args`. */
export type CustomStep = (world: World, args: unknown) => void | Promise<void>;

/** What a step may use besides the world. */
export interface StepContext {
  world: World;
  /** Node names to keys (for the node and account names steps use). */
  names: Map<string, NodeKey>;
  /** The genesis a node restarted with transitions of its own starts from. */
  genesisWith(transitions: TransitionStep[]): Record<string, unknown>;
  /** Tells the invariant checkers that a node now runs with rules of its own. */
  markReconfigured(node: string): void;
  privacyRun: PrivacyRun | undefined;
  apiRun: ApiClientsRun | undefined;
  customSteps: Readonly<Record<string, CustomStep>> | undefined;
  /** The next nonce of each test account (transfer steps). */
  accountNonces: Map<number, bigint>;
}

type StepOf<K extends Step['do']> = Extract<Step, { do: K }>;

interface StepKind<K extends Step['do']> {
  /** A fault (network, process, behaviour; a custom step may be one), not a client's request: liveness is owed once the last has run. */
  fault: boolean;
  apply(st: StepOf<K>, ctx: StepContext): Promise<void>;
}

const GIB = 10n ** 18n;

export const STEPS: { readonly [K in Step['do']]: StepKind<K> } = {
  crash: { fault: true, apply: async (st, { world }) => world.crash(st.node) },
  restart: {
    fault: true,
    async apply(st, { world, genesisWith, markReconfigured }) {
      if (st.transitions) {
        world.get(st.node).genesis = parseGenesis(genesisWith(st.transitions));
        markReconfigured(st.node);
      }
      await world.restart(st.node, { wipe: st.wipe });
    },
  },
  partition: { fault: true, apply: async (st, { world }) => world.partition(st.groups) },
  heal: { fault: true, apply: async (_st, { world }) => world.heal() },
  pause: { fault: true, apply: async (st, { world }) => world.pause(st.node) },
  resume: {
    fault: true,
    async apply(st, { world }) {
      await world.resume(st.node);
    },
  },
  clog: { fault: true, apply: async (st, { world }) => world.clog(st.from, st.to) },
  unclog: { fault: true, apply: async (st, { world }) => world.unclog(st.from, st.to) },
  byzantine: { fault: true, apply: async (st, { world }) => world.setByzantine(st.node, st.behaviour) },
  skew: { fault: true, apply: async (st, { world }) => world.setSkew(st.node, st.ms) },
  vote: {
    fault: false,
    async apply(st, { world, names }) {
      for (const n of st.nodes) voteQueueOf(world, n)?.auth(addressOf(names, st.subject), st.add);
      world.trace.record(world.kernel.nowMs(), null, { kind: 'vote-queued', nodes: st.nodes, subject: st.subject, add: st.add });
    },
  },
  'discard-vote': {
    fault: false,
    async apply(st, { world, names }) {
      for (const n of st.nodes) voteQueueOf(world, n)?.discard(addressOf(names, st.subject));
      world.trace.record(world.kernel.nowMs(), null, { kind: 'vote-discarded', nodes: st.nodes, subject: st.subject });
    },
  },
  rpc: {
    fault: false,
    async apply(st, { world, names }) {
      const client = rpcClientOf(world, st.node);
      if (!client) return world.fail(`rpc ${st.method}: ${st.node} is not running`);
      // Names of nodes in address parameters are resolved, so scenarios can say 'o0'.
      const params = (st.params ?? []).map((p) => (typeof p === 'string' && names.has(p) ? addressOf(names, p) : p));
      try {
        await client.request(st.method, params);
      } catch (err) {
        world.fail(`rpc ${st.method} on ${st.node}: ${(err as Error).message}`);
      }
    },
  },
  transfer: { fault: false, apply: transfer },
  'private-tx': {
    fault: false,
    async apply(st, { world, privacyRun }) {
      if (!privacyRun) world.fail(`private-tx on ${st.node}: the scenario has no privacy section`);
      else await privacyRun.step(st);
    },
  },
  'api-clients': {
    fault: false,
    async apply(st, { apiRun }) {
      await apiRun!.attach(st.node, st.pollEveryMs);
    },
  },
  custom: {
    fault: true,
    async apply(st, { world, customSteps }) {
      const step = customSteps?.[st.name];
      if (!step) return world.fail(`custom step '${st.name}': the run was given no step of that name`);
      world.trace.record(world.kernel.nowMs(), null, { kind: 'custom-step', name: st.name });
      await step(world, st.args);
    },
  },
};

/** `count` signed EIP-1559 transfers from a test account, submitted one after another. */
async function transfer(st: StepOf<'transfer'>, { world, names, accountNonces }: StepContext): Promise<void> {
  const accountIndex = st.fromAccount ?? 0;
  const account = BESU_TEST_ACCOUNTS[accountIndex];
  const target = transactionTarget(world, st.node);
  if (!target) return world.fail(`transfer: no running node to submit to`);
  for (let i = 0; i < st.count; i++) {
    const to = st.to === 'logger' ? LOGGER_CONTRACT : st.to ? addressOf(names, st.to) : BESU_TEST_ACCOUNTS[(accountIndex + 1) % 3].address;
    const nonce = accountNonces.get(accountIndex) ?? 0n;
    accountNonces.set(accountIndex, nonce + 1n);
    const tx = createFeeMarket1559Tx(
      { nonce, to, value: BigInt(st.valueWei ?? '1'), gasLimit: st.to === 'logger' ? 40_000n : 21000n, maxFeePerGas: 100n * GIB / 10n ** 9n, maxPriorityFeePerGas: 1n, chainId: target.chainId },
      { common: target.common },
    ).sign(account.privateKey);
    const result = await target.submit(tx.serialize());
    if (!result.ok) world.fail(`transfer ${i} rejected: ${result.error}`);
  }
}

/** Applies a step (the promise settles when the step has run, as the kernel awaits it). */
export function applyStep(st: Step, ctx: StepContext): Promise<void> {
  return (STEPS[st.do] as StepKind<Step['do']>).apply(st, ctx);
}

/** Virtual time of the last fault step (0 when there is none). */
export function lastFaultMs(steps: readonly Step[]): number {
  return steps.filter((st) => STEPS[st.do].fault).reduce((m, st) => Math.max(m, st.atMs), 0);
}

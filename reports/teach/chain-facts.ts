/**
 * What the chain itself says about a finished simulated run, block by block, read from one honest
 * validator's store: who proposed each block in which round, its timestamp and commit seals, the
 * vote it carries, the validators it was sealed by and those after it, the outstanding votes after
 * it (block-header selection), whether it is an epoch block, and the QBFT parameters in force (the
 * transitions). Teaching mode explains moments with these numbers.
 */
import type { Hex } from '../../node/crypto/bytes.ts';
import type { QbftForkParams } from '../../node/chain/fork-schedule.ts';
import type { NodeView } from '../../node/node.ts';
import { VoteTally } from '../../node/consensus/qbft/validators/vote-tally.ts';
import type { World } from '../../sim/world.ts';
import type { NodeInfo } from '../../sim/run-model/run-info.ts';

export interface PendingVote {
  subject: string;
  add: string[];
  drop: string[];
}

export interface BlockFact {
  number: number;
  proposer: string;
  round: number;
  /** Header timestamp, in seconds. */
  timestamp: number;
  seals: number;
  vote: { subject: string; add: boolean } | null;
  /** Validators that may seal this block (address order). */
  validators: string[];
  /** Validators for the next block. */
  validatorsAfter: string[];
  epoch: boolean;
  /** Votes needed to add or drop a validator with this block's vote: floor(n/2) + 1 of its validators. */
  voteThreshold: number;
  /** Outstanding votes after this block (block-header selection only). */
  pendingAfter: PendingVote[];
  params: QbftForkParams;
}

export interface ChainFacts {
  /** The node whose chain was read. */
  reader: string;
  epochLength: number;
  requestTimeoutSeconds: number;
  blockPeriodSeconds: number;
  /** Genesis timestamp, in seconds. */
  genesisTimestamp: number;
  genesisValidators: string[];
  blocks: BlockFact[];
  /** Balance in wei of an account at a block (its state after that block). */
  balanceAt(account: string, block: number): Promise<bigint>;
  nameOf(address: string): string;
  addressOf(name: string): string | null;
}

function pickReader(world: World, nodes: NodeInfo[]): NodeView {
  let best: { node: NodeView; head: number } | undefined;
  for (const info of nodes) {
    if (info.role !== 'validator' || info.faulty) continue;
    const sim = world.nodes.get(info.name);
    if (!sim?.node || sim.status !== 'up') continue;
    const head = sim.node.head().number;
    if (!best || head > best.head) best = { node: sim.node, head };
  }
  if (!best) throw new Error('no honest validator is up to read the chain from');
  return best.node;
}

export async function chainFacts(world: World, nodes: NodeInfo[]): Promise<ChainFacts> {
  const node = pickReader(world, nodes);
  const byAddress = new Map(nodes.filter((n) => n.address).map((n) => [n.address!.toLowerCase(), n.name]));
  const nameOf = (address: string) => byAddress.get(address.toLowerCase()) ?? address;
  const names = (list: readonly string[]) => list.map(nameOf);
  const genesis = node.config.genesis;
  const epochLength = genesis.qbft.epochLength;
  const genesisEntry = node.blockAt(0)!;
  const genesisValidators = await node.validatorsAfter(genesisEntry);
  let tally = VoteTally.fromValidators(genesisValidators);
  const blocks: BlockFact[] = [];
  const head = node.head().number;
  for (let n = 1; n <= head; n++) {
    const entry = node.blockAt(n)!;
    const parent = node.blockAt(n - 1)!;
    const validators = await node.validatorsAfter(parent);
    const after = await node.validatorsAfter(entry);
    const params = node.schedule.paramsAt(n, entry.timestamp);
    const epoch = n % epochLength === 0;
    const override = node.schedule.transitionAt(n + 1)?.validators;
    const base = override ? VoteTally.fromValidators(override) : epoch ? VoteTally.fromValidators(entry.extra.validators) : tally;
    const vote = entry.extra.vote;
    const threshold = base.threshold();
    tally = epoch ? base.withoutOutstandingVotes() : vote ? base.applyVote(entry.coinbase, vote) : base;
    const header = params.validatorSelectionMode !== 'contract';
    blocks.push({
      number: n,
      proposer: nameOf(entry.coinbase),
      round: entry.extra.round,
      timestamp: entry.timestamp,
      seals: entry.extra.seals.length,
      vote: vote ? { subject: nameOf(vote.recipient), add: vote.add } : null,
      validators: names(validators),
      validatorsAfter: names(after),
      epoch,
      voteThreshold: threshold,
      pendingAfter: header ? tally.pendingVotes().map((p) => ({ subject: nameOf(p.subject), add: names(p.add), drop: names(p.drop) })) : [],
      params,
    });
  }
  const addressOf = (name: string): string | null => (/^0x[0-9a-fA-F]{40}$/.test(name) ? name.toLowerCase() : (nodes.find((n) => n.name === name)?.address?.toLowerCase() ?? null));
  return {
    reader: node.name,
    epochLength,
    requestTimeoutSeconds: genesis.qbft.requestTimeoutSeconds,
    blockPeriodSeconds: genesis.qbft.blockPeriodSeconds,
    genesisTimestamp: genesisEntry.timestamp,
    genesisValidators: names(genesisValidators),
    blocks,
    nameOf,
    addressOf,
    async balanceAt(account, block) {
      const address = addressOf(account);
      const entry = node.blockAt(block);
      if (!address || !entry) return 0n;
      return (await node.account(entry.block.header.stateRoot, address as Hex))?.balance ?? 0n;
    },
  };
}

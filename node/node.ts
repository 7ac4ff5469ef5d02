/**
 * The composition root: one QBFT node built from its config and the runtime ports. The simulator
 * and the live CLI both build nodes here; nothing below this file knows which world it runs in.
 * Each job is a part (node/parts/); this file only creates them, in start order, and hands each
 * its collaborators. The outside holds the result as a NodeView with named actions (QbftNode).
 */
import type { Block } from '@ethereumjs/block';
import { hexToBytes, utf8ToBytes } from './crypto/bytes.ts';
import { privateKeyToAddress } from './crypto/secp256k1.ts';
import { extraDataOf, onchainBlockHash, plainBlockHash } from './chain/block-hashing.ts';
import { Chain } from './chain/chain.ts';
import { sharedCommonFor } from './chain/common.ts';
import { QbftForkSchedule } from './chain/fork-schedule.ts';
import { GenesisError } from './chain/genesis.ts';
import { createGenesisBlock, writeGenesisState } from './chain/genesis-state.ts';
import { vanityFrom } from './chain/extra-data.ts';
import { ExecutionEngine, type ExecutionEngineOptions } from './execution/engine.ts';
import { TxPool } from './execution/tx-pool.ts';
import { StatePersistence } from './execution/state-persistence.ts';
import { NodePrivacy } from './privacy/node-privacy.ts';
import { hooksOf } from './bugs/hooks.ts';
import type { QbftService } from './consensus/qbft-service.ts';
import { VoteProposer } from './consensus/qbft/validators/vote-proposer.ts';
import type { BlockSync } from './p2p/block-sync.ts';
import type { Runtime } from './runtime/ports.ts';
import { ValidatorSets, type ContractCaller } from './validator-sets.ts';
import type { NodeConfig } from './view/node-config.ts';
import { BlockExecutor } from './parts/block-executor.ts';
import { BlockImporter } from './parts/block-importer.ts';
import { BlockProducer } from './parts/block-producer.ts';
import { createQbftService } from './parts/consensus-wiring.ts';
import { HeadFollower } from './parts/head-follower.ts';
import { HeaderChecker } from './parts/header-checker.ts';
import { HeightRules } from './parts/height-rules.ts';
import { QbftNode, type NodeIdentity } from './parts/node-handle.ts';
import { ProposalValidator } from './parts/proposal-validator.ts';
import { StateRestorer } from './parts/state-restorer.ts';
import { createBlockSync } from './parts/sync-wiring.ts';
import { TxIndex } from './parts/tx-index.ts';
import { WireRouter } from './parts/wire-router.ts';

export type { QbftNode } from './parts/node-handle.ts';
export type { NodeConfig, BlockRequest, BlockCreator, ProposalBlockSpec } from './view/node-config.ts';
export type { NodeView, NodeActions, ConsensusDriver, ImportOutcome, SubmitOutcome, TxLocation, PooledTxMeta, MiningState, SyncStatus, ExecutionStats, HeadListener } from './view/node-view.ts';
export type { PrivacyConfig } from './privacy/node-privacy.ts';
export type { NodeProposedBlock, Reproposal } from './consensus/proposed-block.ts';
export type { ChainEntry } from './chain/chain.ts';
export type { ConsensusSigner } from './consensus/qbft/core-types.ts';

/** Parts that exist only once the start has reached them (the jobs reach them through getters). */
interface Late {
  engine?: ExecutionEngine;
  chain?: Chain;
  validators?: ValidatorSets;
  persistence?: StatePersistence;
  pool?: TxPool;
  sync?: BlockSync;
  privacy?: NodePrivacy;
  qbft?: QbftService;
}

type Jobs = ReturnType<typeof wireJobs>;

export async function createNode(config: NodeConfig, runtime: Runtime): Promise<QbftNode> {
  const identity = identityOf(config);
  const late: Late = {};
  const votes = new VoteProposer();
  const jobs = wireJobs(config, runtime, identity, votes, late);
  const router = await start(config, runtime, identity, jobs, late);
  const { engine, chain, validators, qbft, pool, sync, privacy } = late;
  return new QbftNode({ config, runtime, identity, votes, engine: engine!, chain: chain!, validators, qbft, pool: pool!, sync: sync!, privacy, router, ...jobs });
}

/** The start, in its order: state, chain and validators; pool and sync; privacy; the wire; consensus. */
async function start(config: NodeConfig, runtime: Runtime, id: NodeIdentity, jobs: Jobs, late: Late): Promise<WireRouter> {
  const { genesis } = config;
  late.engine = await ExecutionEngine.create(engineOptions(config, id, late));
  const genesisBlock = await createGenesisBlock(genesis, id.common);
  const chain = (late.chain = await Chain.open(runtime.store, genesisBlock, id.common, id.hashOf));
  await jobs.restorer.checkStoredRules();
  if (id.bft) late.validators = validatorSetsOf(config, id, genesisBlock, chain, late.engine);
  late.persistence = persistenceOf(runtime, late.engine);
  await jobs.restorer.restoreState();
  jobs.txIndex.rebuild(chain);
  const pool = (late.pool = poolOf(config, id, jobs, chain, late.engine));
  const sync = (late.sync = createBlockSync(runtime, {
    genesis,
    common: id.common,
    bft: id.bft,
    chain,
    importBlock: (block) => jobs.importer.importBlock(block, { checkSeals: !id.hooks.syncedBlocksSkipSeals }),
    onSyncing: (syncing) => jobs.follower.onSyncing(syncing),
  }));
  jobs.txIndex.followPool(pool, runtime.clock);
  sync.onTransactions = (_peer, raws) => {
    for (const raw of raws) void pool.add(raw);
  };
  if (config.privacy) {
    late.privacy = new NodePrivacy(config.privacy, { transport: runtime.transport, common: id.common, random: runtime.random, store: runtime.store, log: runtime.log });
    await late.privacy.start({ genesisHash: chain.genesis.hash, head: () => chain.head(), canonicalAt: (n) => chain.canonicalAt(n) });
  }
  const router = new WireRouter(runtime, id.bft, sync, late.privacy);
  router.attach();
  if (id.bft) await startConsensus(config, runtime, id, jobs, late, router);
  for (const peer of runtime.transport.peers()) {
    late.privacy?.onPeerConnected(peer);
    sync.onPeerConnected(peer);
  }
  if (id.bft) await late.qbft!.onNewHead(await jobs.rules.heightContext(chain.head()));
  return router;
}

function identityOf(config: NodeConfig): NodeIdentity {
  const { consensus } = config.genesis;
  if (consensus === 'ibft2' || consensus === 'clique')
    throw new GenesisError(`config.${consensus}`, `names ${consensus === 'ibft2' ? 'IBFT 2.0' : 'Clique'}: qbft-lab runs QBFT (config.qbft) and chains without a consensus section only`);
  const address = privateKeyToAddress(config.privateKey);
  const common = sharedCommonFor(config.genesis);
  const schedule = new QbftForkSchedule(config.genesis);
  const bft = config.genesis.consensus !== 'ethash';
  return { address, common, schedule, bft, hashOf: bft ? onchainBlockHash : plainBlockHash, hooks: hooksOf(config.bugs) };
}

/** The jobs of the node, each given its collaborators (those created later through `late`). */
function wireJobs(config: NodeConfig, runtime: Runtime, id: NodeIdentity, votes: VoteProposer, late: Late) {
  const { genesis } = config;
  const { common, schedule, bft, hooks, hashOf } = id;
  const chain = () => late.chain!;
  const engine = () => late.engine!;
  const validators = () => late.validators!;
  const pool = () => late.pool!;
  const rules = new HeightRules({ genesis, schedule, common, bft, hooks, clock: runtime.clock, head: () => chain().head(), engine, validators });
  const executor = new BlockExecutor({ hashOf, rules, engine, chain, persistence: () => late.persistence!, pool });
  const headers = new HeaderChecker({ genesis, schedule, common, bft, hooks, headerClock: () => runtime.systemClock ?? runtime.clock, chain, engine, validators });
  const restorer = new StateRestorer({ genesis, storedHistoryCheck: config.storedHistoryCheck, store: runtime.store, log: runtime.log, rules, executor, chain, engine, persistence: () => late.persistence! });
  const txIndex = new TxIndex();
  const follower = new HeadFollower({
    bft,
    hooks,
    deliverNewChainHeads: config.deliverNewChainHeads !== false,
    log: runtime.log,
    chain,
    engine,
    pool,
    privacy: () => late.privacy,
    qbft: () => late.qbft!,
    receiptsOf: (entry) => executor.receiptsOf(entry),
    heightContext: (head) => rules.heightContext(head),
  });
  const importer = new BlockImporter({ bft, hashOf, log: runtime.log, headers, executor, txIndex, restorer, follower, chain });
  const proposals = new ProposalValidator({ common, hooks, reproposal: config.reproposal, log: runtime.log, headers, executor, chain });
  const vanity = vanityFrom(config.minerExtraData ?? utf8ToBytes('qbft-lab'));
  const producer = new BlockProducer({
    address: id.address,
    common,
    schedule,
    hooks,
    reproposal: config.reproposal,
    vanity,
    votes,
    rules,
    executor,
    chain,
    engine,
    pool,
    validators,
    sync: () => late.sync!,
    importBlock: (block) => importer.importBlock(block),
  });
  return { rules, executor, txIndex, restorer, follower, importer, proposals, producer };
}

function engineOptions(config: NodeConfig, id: NodeIdentity, late: Late): ExecutionEngineOptions {
  const { genesis } = config;
  return {
    common: id.common,
    writeGenesis: (sm) => writeGenesisState(sm, genesis),
    store: config.sharedExecution?.store,
    memo: config.sharedExecution?.memo,
    depositContractAddress: genesis.depositContractAddress,
    blockHashes: (n) => {
      const entry = late.chain?.canonicalAt(Number(n));
      return entry ? hexToBytes(entry.hash) : undefined;
    },
  };
}

function validatorSetsOf(config: NodeConfig, id: NodeIdentity, genesisBlock: Block, chain: Chain, engine: ExecutionEngine): ValidatorSets {
  const callAt: ContractCaller['callAt'] = async (entry, to, data) => {
    const result = await engine.call(entry.block.header.stateRoot, entry.block.header, to, data);
    if (result.error) throw new Error(`validator contract call failed: ${result.error}`);
    return result.returnValue;
  };
  return new ValidatorSets(id.schedule, extraDataOf(genesisBlock.header).validators, config.genesis.qbft.epochLength, (hash) => chain.get(hash), { callAt }, id.hooks);
}

function persistenceOf(runtime: Runtime, engine: ExecutionEngine): StatePersistence {
  return new StatePersistence({
    store: runtime.store,
    db: engine.store,
    pin: (root) => engine.pin(root),
    unpin: (root) => engine.unpin(root),
    onWarning: (message, fields) => runtime.log.log('warn', message, fields),
  });
}

function poolOf(config: NodeConfig, id: NodeIdentity, jobs: Jobs, chain: Chain, engine: ExecutionEngine): TxPool {
  return new TxPool(
    { minGasPrice: config.minGasPrice ?? 0n },
    {
      chainId: config.genesis.chainId,
      common: id.common,
      getAccount: async (address) => (await engine.getAccount(chain.head().block.header.stateRoot, address)) ?? { nonce: 0n, balance: 0n },
      baseFee: () => jobs.rules.nextBaseFee(),
      nextBlockPosition: () => jobs.rules.nextBlockPosition(),
      isSenderPermitted: config.permissioning?.accounts ? (address) => config.permissioning!.isSenderPermitted(address) : undefined,
    },
  );
}

async function startConsensus(config: NodeConfig, runtime: Runtime, id: NodeIdentity, jobs: Jobs, late: Late, router: WireRouter): Promise<void> {
  const chain = late.chain!;
  const sync = late.sync!;
  late.qbft = router.qbft = createQbftService(config, runtime, {
    address: id.address,
    hooks: id.hooks,
    validateBlock: (rlp, height) => jobs.proposals.validateProposedBlock(rlp, height),
    createBlock: (req) => jobs.producer.createBlock(req),
    commitBlock: (block, round, seals) => jobs.producer.commitBlock(block, round, seals),
    headNumber: () => chain.head().number,
    onPeerAhead: (peer, number) => {
      config.onPeerAhead?.(peer, number);
      sync.notePeerAhead(peer, number);
    },
    multicast: (code, data, except, validators) => router.multicastToValidators({ protocol: 'istanbul', code, data }, except, validators),
  });
}

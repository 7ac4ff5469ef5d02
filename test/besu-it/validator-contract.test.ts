/**
 * Port of Besu's QBFT integration test ValidatorContractTest
 * (consensus/qbft-core/src/integration-test/.../qbft/core/test/ValidatorContractTest.java):
 * validators read from a validator contract, and transitions between block-header and contract
 * validator selection. The genesis blocks and their state come from Besu's own genesis files
 * (test/besu-it/fixtures/, unchanged); the chain rules that Besu's TestContextBuilder sets beside
 * them (block period 3 s, round timer 12 s, epoch 10,000, the validator contract at 0x…8888, the
 * Berlin / London / Shanghai-at-time-10 milestone, zero or fixed base fee, and the test's qbftForks)
 * are written into the `config` section of a copy of the file.
 */
import test, { type ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import { NodeUnderTest } from '../../index.ts';

const NODE_ADDRESS = '0xeac51e3fe1afc9894f0dfeab8ceb471899b932df';
const NODE_PRIVATE_KEY = 'a3bdf521b0f286a80918c4b67000dfd2a2bdef97e94d268016ef9ec86648eac3';
const NODE_2_ADDRESS = '0xe98d92560fac3069ccff53ef348ded26a51d4b68';
const NODE_2_PRIVATE_KEY = 'a3bdf521b0f286a80918c4b67000dfd2a2bdef97e94d268016ef9ec86648eac4';

const NEW_VALIDATOR_CONTRACT_ADDRESS = '0x0000000000000000000000000000000000009999';
/** TestContextBuilder.VALIDATOR_CONTRACT_ADDRESS, BLOCK_TIMER_SEC, ROUND_TIMER_SEC, EPOCH_LENGTH. */
const VALIDATOR_CONTRACT_ADDRESS = '0x0000000000000000000000000000000000008888';
const BLOCK_TIMER_SEC = 3;
const ROUND_TIMER_SEC = 12;
const EPOCH_LENGTH = 10_000;
/** TestClock.fixed(): Instant.ofEpochSecond(10_000_000). */
const FIXED_CLOCK_MS = 10_000_000 * 1000;

const key = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
const NODE_KEYS = [key(NODE_PRIVATE_KEY)];
const BOTH_NODE_KEYS = [key(NODE_PRIVATE_KEY), key(NODE_2_PRIVATE_KEY)];

type Transition = Record<string, unknown>;

interface ChainRules {
  useValidatorContract: boolean;
  milestone?: 'london' | 'shanghai';
  zeroBaseFee?: boolean;
  fixedBaseFee?: boolean;
  qbftForks?: Transition[];
}

/** One of Besu's genesis files with the config TestContextBuilder gives the node beside it. */
function genesis(file: string, rules: ChainRules): Record<string, unknown> {
  const json = JSON.parse(readFileSync(new URL(`./fixtures/${file}`, import.meta.url), 'utf8')) as Record<string, unknown>;
  const qbft: Record<string, unknown> = { blockperiodseconds: BLOCK_TIMER_SEC, requesttimeoutseconds: ROUND_TIMER_SEC, epochlength: EPOCH_LENGTH };
  if (rules.useValidatorContract) qbft.validatorcontractaddress = VALIDATOR_CONTRACT_ADDRESS;
  // useLondonMilestone -> londonBlock(0), else useShanghaiMilestone -> shanghaiTime(10), else berlinBlock(0).
  const config: Record<string, unknown> =
    rules.milestone === 'london' ? { londonBlock: 0 } : rules.milestone === 'shanghai' ? { shanghaiTime: 10 } : { berlinBlock: 0 };
  if (rules.zeroBaseFee) config.zeroBaseFee = true;
  if (rules.fixedBaseFee) config.fixedBaseFee = true;
  config.qbft = qbft;
  if (rules.qbftForks?.length) config.transitions = { qbft: rules.qbftForks };
  return { ...json, config };
}

function createContractFork(block: number, contractAddress: string): Transition {
  return { block, validatorselectionmode: 'CONTRACT', validatorcontractaddress: contractAddress };
}

function createBlockHeaderFork(block: number, validators: string[]): Transition {
  return { block, validatorselectionmode: 'BLOCKHEADER', validators };
}

/** Besu's test field `clock`: a TestClock at the epoch plus BLOCK_TIMER_SEC, stepped by the test. */
class FieldClock {
  seconds = BLOCK_TIMER_SEC;
  /** The node under test's consensus clock, when the test gives it this clock. */
  context: NodeUnderTest | undefined;

  async step(seconds: number): Promise<void> {
    this.seconds += seconds;
    if (this.context) await this.context.advanceTo(this.seconds * 1000);
  }
}

async function createNewBlockAsProposer(t: ExecutionContext, context: NodeUnderTest, clock: FieldClock, blockNumber: number) {
  await createNewBlockAsProposerFixedTime(t, context, blockNumber, clock.seconds);
}

async function createNewBlockAsProposerFixedTime(t: ExecutionContext, context: NodeUnderTest, blockNumber: number, timestamp: number) {
  const roundId = { height: blockNumber, round: 0 };
  // trigger proposal
  await context.blockTimerExpiry(roundId);
  // peers commit proposed block
  const proposedBlock = await context.createBlockForProposal({ timestampSeconds: timestamp });
  const peers = await context.roundSpecificPeers(roundId);
  await peers.commitForNonProposing(roundId, proposedBlock);
  t.is(context.chainHeight(), blockNumber);
  await context.newChainHead(context.chainHead());
}

async function remotePeerProposesNewBlock(t: ExecutionContext, context: NodeUnderTest, clock: FieldClock, blockNumber: number) {
  const roundId = { height: blockNumber, round: 0 };
  const peers = await context.roundSpecificPeers(roundId);
  const remoteProposer = peers.getProposer();
  const blockToPropose = await context.createBlockForProposal({ timestampSeconds: clock.seconds, coinbase: remoteProposer.address });
  await remoteProposer.injectProposal(roundId, blockToPropose);
  await remoteProposer.injectCommit(roundId, blockToPropose);
  t.is(context.chainHeight(), blockNumber);
  await context.newChainHead(context.chainHead());
}

const sorted = (addresses: string[]) => [...addresses].sort();

async function contractOnlyCase(
  t: ExecutionContext,
  file: string,
  rules: Omit<ChainRules, 'useValidatorContract'>,
  proposalTimestamp?: number,
) {
  const clock = new FieldClock();
  const context = await NodeUnderTest.create({ localIndex: 0, keys: NODE_KEYS, clockMs: FIXED_CLOCK_MS, genesis: genesis(file, { ...rules, useValidatorContract: true }) });

  if (proposalTimestamp === undefined) await createNewBlockAsProposer(t, context, clock, 1);
  else await createNewBlockAsProposerFixedTime(t, context, 1, proposalTimestamp);

  t.deepEqual(await context.validatorsForBlock(0), [NODE_ADDRESS]);
  t.deepEqual(await context.validatorsForBlock(1), [NODE_ADDRESS]);
}

test('ValidatorContractTest.retrievesValidatorsFromValidatorContract', async (t) => {
  await contractOnlyCase(t, 'genesis_validator_contract.json', {});
});

test('ValidatorContractTest.retrievesValidatorsFromValidatorContract_LondonFork', async (t) => {
  await contractOnlyCase(t, 'genesis_validator_contract_london.json', { milestone: 'london' });
});

test('ValidatorContractTest.retrievesValidatorsFromValidatorContract_LondonFork_ZeroBaseFee', async (t) => {
  // Using London on a free gas network
  await contractOnlyCase(t, 'genesis_validator_contract_london.json', { milestone: 'london', zeroBaseFee: true });
});

test('ValidatorContractTest.retrievesValidatorsFromValidatorContract_ShanghaiFork_ZeroBaseFee', async (t) => {
  // Using Shanghai on a free gas network; 266 is 10 s after the genesis timestamp (0x100).
  await contractOnlyCase(t, 'genesis_validator_contract_shanghai.json', { milestone: 'shanghai', zeroBaseFee: true }, 266);
});

test('ValidatorContractTest.retrievesValidatorsFromValidatorContract_LondonFork_FixedBaseFee', async (t) => {
  await contractOnlyCase(t, 'genesis_validator_contract_london.json', { milestone: 'london', fixedBaseFee: true });
});

test('ValidatorContractTest.retrievesValidatorsFromValidatorContract_ShanghaiFork_FixedBaseFee', async (t) => {
  await contractOnlyCase(t, 'genesis_validator_contract_shanghai.json', { milestone: 'shanghai', fixedBaseFee: true }, 266);
});

test('ValidatorContractTest.transitionsFromBlockHeaderModeToValidatorContractMode', async (t) => {
  const clock = new FieldClock();
  const qbftForks = [createContractFork(1, VALIDATOR_CONTRACT_ADDRESS)];
  const context = await NodeUnderTest.create({
    localIndex: 1,
    keys: BOTH_NODE_KEYS,
    clockMs: FIXED_CLOCK_MS,
    genesis: genesis('genesis_migrating_validator_contract.json', { useValidatorContract: false, qbftForks }),
  });

  // block 0 uses block header voting with 1 validator
  // block 1 onwards uses validator contract with 2 validators
  const block0Addresses = [NODE_ADDRESS];
  const block1Addresses = sorted([NODE_ADDRESS, NODE_2_ADDRESS]);

  await remotePeerProposesNewBlock(t, context, clock, 1);

  t.deepEqual(await context.validatorsForBlock(0), block0Addresses);
  t.deepEqual(context.blockAt(0).extra.validators, [NODE_ADDRESS]);

  // contract block extra data cannot contain validators or vote
  t.deepEqual(await context.validatorsForBlock(1), block1Addresses);
  t.deepEqual(context.blockAt(1).extra.validators, []);
  t.is(context.blockAt(1).extra.vote, undefined);
});

test('ValidatorContractTest.transitionsFromValidatorContractModeToValidatorContractMode', async (t) => {
  const clock = new FieldClock();
  const qbftForks = [createContractFork(1, NEW_VALIDATOR_CONTRACT_ADDRESS)];
  const context = await NodeUnderTest.create({
    localIndex: 1,
    keys: BOTH_NODE_KEYS,
    clockMs: clock.seconds * 1000,
    genesis: genesis('genesis_validator_contract.json', { useValidatorContract: true, qbftForks }),
  });
  clock.context = context;

  // block 0 uses validator contract with 1 validator
  // block 1 uses validator contract with 2 validators
  const block0Addresses = [NODE_ADDRESS];
  const block1Addresses = sorted([NODE_ADDRESS, NODE_2_ADDRESS]);

  await remotePeerProposesNewBlock(t, context, clock, 1);

  // contract block extra data cannot contain validators or vote
  t.deepEqual(await context.validatorsForBlock(0), block0Addresses);
  t.deepEqual(context.blockAt(0).extra.validators, []);
  t.is(context.blockAt(0).extra.vote, undefined);

  // contract block extra data cannot contain validators or vote
  t.deepEqual(await context.validatorsForBlock(1), block1Addresses);
  t.deepEqual(context.blockAt(1).extra.validators, []);
  t.is(context.blockAt(1).extra.vote, undefined);
});

test('ValidatorContractTest.transitionsFromValidatorContractModeToBlockHeaderMode', async (t) => {
  const clock = new FieldClock();
  const qbftForks = [createBlockHeaderFork(1, [NODE_ADDRESS, NODE_2_ADDRESS])];
  const context = await NodeUnderTest.create({
    localIndex: 0,
    keys: BOTH_NODE_KEYS,
    clockMs: clock.seconds * 1000,
    genesis: genesis('genesis_validator_contract.json', { useValidatorContract: true, qbftForks }),
  });
  clock.context = context;

  // block 0 uses validator contract with 1 validator
  // block 1 onwards uses block header voting with 2 overridden validators
  // block 2 uses block header voting with the cached validators
  const block0Addresses = [NODE_ADDRESS];
  const block1Addresses = sorted([NODE_ADDRESS, NODE_2_ADDRESS]);

  await createNewBlockAsProposer(t, context, clock, 1);
  await clock.step(BLOCK_TIMER_SEC);
  await remotePeerProposesNewBlock(t, context, clock, 2);

  // contract block extra data cannot contain validators or vote
  t.deepEqual(await context.validatorsForBlock(0), block0Addresses);
  t.deepEqual(context.blockAt(0).extra.validators, []);
  t.is(context.blockAt(0).extra.vote, undefined);

  // uses overridden validators
  t.deepEqual(await context.validatorsForBlock(1), block1Addresses);
  t.deepEqual(context.blockAt(1).extra.validators, [NODE_2_ADDRESS, NODE_ADDRESS]);

  // uses cached validators
  t.deepEqual(await context.validatorsForBlock(2), block1Addresses);
  t.deepEqual(context.blockAt(2).extra.validators, [NODE_2_ADDRESS, NODE_ADDRESS]);
});

test('ValidatorContractTest.transitionsFromBlockHeaderModeToValidatorContractModeThenBack', async (t) => {
  const clock = new FieldClock();
  const qbftForks = [createContractFork(1, VALIDATOR_CONTRACT_ADDRESS), createBlockHeaderFork(2, [NODE_ADDRESS, NODE_2_ADDRESS])];
  const context = await NodeUnderTest.create({
    localIndex: 1,
    keys: BOTH_NODE_KEYS,
    clockMs: clock.seconds * 1000,
    genesis: genesis('genesis_migrating_validator_contract.json', { useValidatorContract: false, qbftForks }),
  });
  clock.context = context;

  // block 0 uses block header voting with 1 validator
  // block 1 uses validator contract with 2 validators
  // block 2 uses block header voting with 2 overridden validators
  // block 3 uses block header voting with cached validators
  const block0Addresses = [NODE_ADDRESS];
  const block1Addresses = sorted([NODE_ADDRESS, NODE_2_ADDRESS]);

  await remotePeerProposesNewBlock(t, context, clock, 1);
  await clock.step(BLOCK_TIMER_SEC);
  await createNewBlockAsProposer(t, context, clock, 2);
  await clock.step(BLOCK_TIMER_SEC);
  await remotePeerProposesNewBlock(t, context, clock, 3);

  t.deepEqual(await context.validatorsForBlock(0), block0Addresses);
  t.deepEqual(context.blockAt(0).extra.validators, [NODE_ADDRESS]);

  // contract block extra data cannot contain validators or vote
  t.deepEqual(await context.validatorsForBlock(1), block1Addresses);
  t.deepEqual(context.blockAt(1).extra.validators, []);
  t.is(context.blockAt(1).extra.vote, undefined);

  // uses overridden validators
  t.deepEqual(await context.validatorsForBlock(2), block1Addresses);
  t.deepEqual(context.blockAt(2).extra.validators, [NODE_2_ADDRESS, NODE_ADDRESS]);

  // uses cached validators
  t.deepEqual(await context.validatorsForBlock(3), block1Addresses);
  t.deepEqual(context.blockAt(3).extra.validators, [NODE_2_ADDRESS, NODE_ADDRESS]);
});

test('ValidatorContractTest.transitionsFromValidatorContractModeToBlockHeaderModeThenBackToNewContract', async (t) => {
  const clock = new FieldClock();
  const qbftForks = [createBlockHeaderFork(1, [NODE_2_ADDRESS]), createContractFork(2, NEW_VALIDATOR_CONTRACT_ADDRESS)];
  const context = await NodeUnderTest.create({
    localIndex: 0,
    keys: BOTH_NODE_KEYS,
    clockMs: clock.seconds * 1000,
    genesis: genesis('genesis_validator_contract.json', { useValidatorContract: true, qbftForks }),
  });
  clock.context = context;

  // block 0 uses validator contract with 1 validator
  // block 1 uses block header voting with 1 overridden validator
  // block 2 uses validator contract with 2 validators
  const block0Addresses = [NODE_ADDRESS];
  const block1Addresses = [NODE_2_ADDRESS];
  const block2Addresses = sorted([NODE_ADDRESS, NODE_2_ADDRESS]);

  await createNewBlockAsProposer(t, context, clock, 1);
  await clock.step(BLOCK_TIMER_SEC);
  await remotePeerProposesNewBlock(t, context, clock, 2);

  // contract block extra data cannot contain validators or vote
  t.deepEqual(await context.validatorsForBlock(0), block0Addresses);
  t.deepEqual(context.blockAt(0).extra.validators, []);
  t.is(context.blockAt(0).extra.vote, undefined);

  t.deepEqual(await context.validatorsForBlock(1), block1Addresses);
  t.deepEqual(context.blockAt(1).extra.validators, [NODE_2_ADDRESS]);

  // contract block extra data cannot contain validators or vote
  t.deepEqual(await context.validatorsForBlock(2), block2Addresses);
  t.deepEqual(context.blockAt(2).extra.validators, []);
  t.is(context.blockAt(2).extra.vote, undefined);
});

/**
 * The known-bug corpus: real QBFT / IBFT 2.0 bugs of Besu and GoQuorum, each re-introduced behind a
 * switch (node/bugs/bug-switches.ts) with a scenario that passes with the switch off and shows the
 * bug's symptom with it on. `qbft-lab bugs list|check` and `qbft-lab fuzz --bug` read this list.
 */
import { switchOf, type KnownBug } from './known-bug.ts';
import { isPlantedBugId } from '../../node/bugs/bug-switches.ts';
import { SIM_START_TIME_MS } from '../world.ts';

/**
 * A Besu genesis file with every block-numbered hardfork at 0 and shanghaiTime 0, so that Besu
 * compares each QBFT transition's `block` with the block timestamp (a time-typed transition).
 */
function shanghaiGenesis(qbft: Record<string, unknown>, transitions: Array<Record<string, unknown>>): Record<string, unknown> {
  return {
    config: {
      chainId: 1337,
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
      shanghaiTime: 0,
      qbft: { blockperiodseconds: 1, epochlength: 30000, requesttimeoutseconds: 2, ...qbft },
      transitions: { qbft: transitions },
    },
    nonce: '0x0',
    gasLimit: '0x1c9c380',
    difficulty: '0x1',
    mixHash: '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365',
    coinbase: '0x0000000000000000000000000000000000000000',
    alloc: {},
  };
}

export const KNOWN_BUGS: readonly KnownBug[] = [
  {
    id: 'besu-1671',
    title: 'IBFT 2.0 accepted prepared certificates padded with duplicate prepares',
    link: 'https://github.com/hyperledger/besu/pull/1671',
    rootCause:
      'The round-change payload validator checked that a prepared certificate held a quorum of valid prepares but ' +
      'counted messages, not distinct authors (fixed by a distinct-author check; QBFT checks duplicate authors too). ' +
      'A Byzantine validator could pad a certificate with a repeated prepare, and an honest proposer then re-proposed ' +
      'on a certificate no quorum stood behind. The switch drops the distinct-author check, so copies count toward the quorum of entries.',
    symptom: 'invalid message accepted',
    caughtBy: ['honest-messages', 'acceptance'],
    affected: { since: '1.0', fixedIn: '21.1.0' },
    fidelity: { faithful: true },
    scenario: {
      name: 'bug-besu-1671',
      description: 'v3 pads every certificate it sends with a repeated author, on a network losing 10 % of messages (no re-gossip), so rounds change with prepared certificates.',
      seed: 2,
      validators: 4,
      genesis: { requestTimeoutSeconds: 1 },
      network: { loss: 0.1, gossip: false },
      durationMs: 45_000,
      steps: [{ atMs: 0, do: 'byzantine', node: 'v3', behaviour: 'duplicate-authors' }],
      expect: [{ kind: 'min-height', height: 10, nodes: ['v0', 'v1', 'v2'] }],
    },
  },
  {
    id: 'besu-2449',
    title: 'Duplicate messages counted towards prepare and commit quorums',
    link: 'https://github.com/hyperledger/besu/pull/2449',
    rootCause:
      'RoundState kept prepares and commits in hash sets, but the message wrapper had no equality, so two copies of ' +
      'one signed message were two entries and counted twice (fixed by payload equality). Copies normally die in the ' +
      'duplicate filter (duplicatemessagelimit hashes); one that arrives after its hash was evicted got through, so a ' +
      'node could be prepared or committed short of a quorum and send round changes with a repeated prepare. The switch ' +
      'keys the round state by arrival instead of by author.',
    symptom: 'invalid message accepted',
    caughtBy: ['honest-messages'],
    affected: { since: '1.0', fixedIn: '21.7.0' },
    fidelity: { faithful: true },
    scenario: {
      name: 'bug-besu-2449',
      description:
        'A network that delivers 30 % of messages twice and delays half by up to 1.5 s, a duplicate filter of 4 hashes, ' +
        'and 10 % loss (no re-gossip): late copies get past the filter.',
      seed: 6,
      validators: 4,
      genesis: { requestTimeoutSeconds: 1, duplicateMessageLimit: 4 },
      network: { latency: { kind: 'uniform', minMs: 5, maxMs: 30 }, loss: 0.1, duplicate: 0.3, reorder: 0.5, reorderWindowMs: 1_500, gossip: false },
      durationMs: 35_000,
      steps: [],
      expect: [{ kind: 'min-height', height: 8 }],
    },
  },
  {
    id: 'besu-1734',
    title: 'IBFT 2.0: a round expiry racing the block import; the node keeps working on the height it imported',
    link: 'https://github.com/hyperledger/besu/issues/1734',
    rootCause:
      'The local commit counts as soon as a proposal is accepted (still Besu\'s design), and timer expiries and ' +
      'messages share one event queue. An import queued the new chain head behind a round expiry the timer thread had ' +
      'already queued, and the controller only checked the height manager\'s own height, so the stale height manager ' +
      'moved to the next round and multicast a round change for a height already in its chain; with a Byzantine peer ' +
      'this can fork (PR #1575 drops expiries and messages at or below the chain head). The switch lets the committing ' +
      'round\'s timer expire into the old height manager right after the import, every time (the race always lost).',
    symptom: 'work on an imported height',
    caughtBy: ['round-start'],
    affected: { since: '1.0', fixedIn: '20.10.2' },
    fidelity: { faithful: false, why: 'the switch hands every round expiry queued with an import to the old height manager; Besu loses that race only when its timer thread enqueues the expiry in the same step, which our serial node cannot schedule' },
    scenario: {
      name: 'bug-besu-1734',
      description: 'Four honest validators, no faults: no node may act on a timer expiry for a height it has imported.',
      validators: 4,
      durationMs: 15_000,
      steps: [],
      expect: [{ kind: 'min-height', height: 12 }],
    },
  },
  {
    id: 'besu-2095',
    title: 'QBFT starts the round-0 timer with the height, before the block timer expires',
    link: 'https://github.com/hyperledger/besu/issues/2095',
    rootCause:
      'The height manager created round 0, and with it the round timer, as soon as the height began, while the ' +
      'block timer ran only on the proposer (fixed by PR #2112: round 0 starts when the block timer expires). With ' +
      'a request timeout no longer than the block period, round 0 expires before any proposal exists. The switch ' +
      'starts round 0 and its timer at the start of each height.',
    symptom: 'needless round changes',
    caughtBy: ['round-start'],
    affected: { since: '21.1.0', fixedIn: '21.1.6' },
    fidelity: { faithful: true },
    scenario: {
      name: 'bug-besu-2095',
      description: 'Four validators, block period 5 s, request timeout 4 s, no faults: every height must finish in round 0.',
      validators: 4,
      genesis: { blockPeriodSeconds: 5, requestTimeoutSeconds: 4 },
      durationMs: 60_000,
      steps: [],
      expect: [{ kind: 'round-changes', max: 0 }, { kind: 'min-height', height: 10 }],
    },
  },
  {
    id: 'besu-2241',
    title: 'Header timestamp truncated when the block timer fires a few ms early: proposals rejected',
    link: 'https://github.com/hyperledger/besu/issues/2241',
    rootCause:
      'The round-0 header timestamp was now / 1000 truncated (fixed by PR #2265: rounded to the nearest second). A ' +
      'block timer that fired a few ms before parent + period, as JVM timers and clock adjustments make happen, gave ' +
      'parent + period - 1, which every peer rejects (timestamp not a block period after its parent), so the height ' +
      'needs a round change. The switch truncates again.',
    symptom: 'needless round changes',
    caughtBy: ['honest-messages'],
    affected: { since: '1.0', fixedIn: '21.1.6' },
    fidelity: { faithful: true },
    scenario: {
      name: 'bug-besu-2241',
      description: 'Every clock is set back 20 ms while the first block timer is pending, so it fires 20 ms early by the clock: no round may be lost.',
      validators: 4,
      genesis: { blockPeriodSeconds: 2, requestTimeoutSeconds: 4 },
      durationMs: 20_000,
      steps: ['v0', 'v1', 'v2', 'v3'].map((node) => ({ atMs: 500, do: 'skew' as const, node, ms: -20 })),
      expect: [{ kind: 'round-changes', max: 0 }, { kind: 'min-height', height: 8 }],
    },
  },
  {
    id: 'besu-2894',
    title: 'QBFT: a transition that names no validator selection mode puts a contract-mode chain under block-header rules',
    link: 'https://github.com/hyperledger/besu/issues/2894',
    rootCause:
      'From PR #2655 (21.7.4), which let QBFT switch to a validator contract, until PR #2874 (21.10.1), the protocol ' +
      'schedule gave each transition\'s fork the header rules of contract mode only when that transition itself said ' +
      'validatorselectionmode contract; the genesis fork asked whether the genesis had a contract address. A ' +
      'transition that changes something else, such as the block reward, on a contract-mode chain therefore brought ' +
      'block-header rules, under which a block must list the validators in its extraData, while contract-mode blocks ' +
      'list none: from that block on every proposal fails validation and the chain stalls (issue #2894). The switch ' +
      'takes a block\'s header rules from whether the transition in force there (or the genesis) names contract mode.',
    symptom: 'stall',
    caughtBy: ['liveness'],
    affected: { since: '21.7.4', fixedIn: '21.10.1' },
    fidelity: { faithful: true },
    scenario: {
      name: 'bug-besu-2894',
      description:
        'Validators come from a contract from the genesis on, and a transition changes only the block reward at block 5; ' +
        'v3 is cut off from 2 s to 8 s, and after the heal the chain must go on past block 5.',
      validators: 4,
      genesis: { contractMode: true, transitions: [{ block: 5, blockReward: '1000000000000000000' }] },
      durationMs: 30_000,
      steps: [
        { atMs: 2_000, do: 'partition', groups: [['v3'], ['v0', 'v1', 'v2']] },
        { atMs: 8_000, do: 'heal' },
      ],
      expect: [{ kind: 'min-height', height: 20 }],
    },
  },
  {
    id: 'besu-2901',
    title: 'QBFT: the validators for the next block come from the current block\'s fork: a selection-mode transition acts a block late',
    link: 'https://github.com/hyperledger/besu/issues/2901',
    rootCause:
      'From PR #2655 (21.7.4) until PR #2935 (21.10.1) ForkingValidatorProvider, asked for the validators after a ' +
      'block, chose the provider (block-header votes or the contract) and the contract address by the fork in force at ' +
      'that block\'s own number instead of the next block\'s, and checked its special case for the first block-header ' +
      'block there too. Proposer choice, extraData, seals and header validation all asked the same question, so every ' +
      'node agreed, but the first block of a new validator selection mode (or of a new contract) was proposed and ' +
      'sealed by the previous mode\'s validators. The switch resolves the fork at the parent\'s number, as Besu did.',
    symptom: 'wrong validator set',
    caughtBy: ['validity', 'acceptance'],
    affected: { since: '21.7.4', fixedIn: '21.10.1' },
    fidelity: { faithful: true },
    scenario: {
      name: 'bug-besu-2901',
      description: 'A transition at block 6 moves validator selection from block-header votes to a contract listing v0, v1 and v2: block 6 must be sealed by those three.',
      validators: 4,
      genesis: { transitions: [{ block: 6, contractValidators: ['v0', 'v1', 'v2'] }] },
      durationMs: 20_000,
      steps: [],
      expect: [{ kind: 'min-height', height: 15 }],
    },
  },
  {
    id: 'besu-6613',
    title: 'QBFT stalls: "Latest Prepared Metadata blockhash does not align with proposed block"',
    link: 'https://github.com/hyperledger/besu/issues/6613',
    rootCause:
      'From PR #2141 to PR #7875 every block was built with round 0 in its extraData and a prepared block was ' +
      're-proposed unchanged, while proposal validation wrote the prepared round into the block before comparing ' +
      'its hash with the prepared certificate. Any block prepared in round >= 1 and not committed could never be ' +
      're-proposed: the height stalls. The switch builds every block with round 0, re-proposes unchanged, and ' +
      'prepares the node\'s own proposal without validating it (as before PR #7875).',
    symptom: 'stall',
    caughtBy: ['honest-messages', 'liveness'],
    affected: { since: '21.1.5', fixedIn: '24.12.0' },
    fidelity: { faithful: true },
    scenario: {
      name: 'bug-besu-6613',
      description:
        'v3 is down, so the three others are the quorum. At height 4 (v3 proposes round 0) round 1 prepares a block, ' +
        'then a partition drops the commits until just before the round-1 timer: the block must be re-proposed.',
      validators: 4,
      genesis: { blockPeriodSeconds: 1, requestTimeoutSeconds: 2 },
      network: { latency: { kind: 'fixed', ms: 10 } },
      durationMs: 60_000,
      steps: [
        { atMs: 0, do: 'crash', node: 'v3' },
        { atMs: 6_035, do: 'partition', groups: [['v0'], ['v1'], ['v2']] },
        { atMs: 9_900, do: 'heal' },
      ],
      expect: [{ kind: 'min-height', height: 10 }],
    },
  },
  {
    id: 'besu-7642',
    title: 'QBFT private network halted (Bonsai, 24.3.3); one candidate cause: proposal validation persisted the proposed state',
    link: 'https://github.com/hyperledger/besu/issues/7642',
    rootCause:
      'The report was closed without a root cause. One candidate (our inference, unconfirmed): before PR #7204 (24.7.0) ' +
      'validating a proposal persisted the proposed block\'s world state on Bonsai, so once one proposal of a height ' +
      'had been validated, a different block proposed after a round change failed as "Invalid block" and the height ' +
      'stalled with rounds and timers climbing, as in the report. The switch makes a node reject any block of a height ' +
      'other than the first one it validated there (the same block with only its round changed still passes).',
    symptom: 'stall',
    caughtBy: ['liveness'],
    affected: { since: '24.3.0', fixedIn: '24.7.0' },
    fidelity: { faithful: false, why: 'no confirmed root cause: the switch models one candidate (proposal validation persisting the proposed state, fixed by PR #7204 in 24.7.0); the report was on 24.3.3' },
    scenario: {
      name: 'bug-besu-7642',
      description:
        'Every validator is cut off just after the round-0 proposal of block 1 arrives and before any prepare does; ' +
        'round 1 must be able to commit a different block.',
      validators: 4,
      genesis: { blockPeriodSeconds: 1, requestTimeoutSeconds: 2 },
      network: { latency: { kind: 'fixed', ms: 10 } },
      durationMs: 40_000,
      steps: [
        { atMs: 1_015, do: 'partition', groups: [['v0'], ['v1'], ['v2'], ['v3']] },
        { atMs: 2_990, do: 'heal' },
      ],
      expect: [{ kind: 'min-height', height: 20 }],
    },
  },
  {
    id: 'besu-8307',
    title: 'Restarted BFT validators fail to agree: a stale height manager after a sync',
    link: 'https://github.com/hyperledger/besu/issues/8307',
    rootCause:
      'Since PR #7657 Besu stops the BFT mining coordinator while the node has a sync target and starts it again ' +
      'afterwards, but the controller\'s start built a height manager only the first time (fixed by PR #8308). A ' +
      'node that synced kept the height manager of the height it stopped at, with its timers gone and no new-head ' +
      'event for the blocks synced meanwhile. When fewer than a quorum keep producing, nothing heals it. The ' +
      'switch cancels the consensus timers when a sync begins and withholds new heads from consensus during it.',
    symptom: 'stall',
    caughtBy: ['liveness'],
    affected: { since: '24.10.0', fixedIn: '25.3.0' },
    fidelity: { faithful: true },
    scenario: {
      name: 'bug-besu-8307',
      description: 'Two of four validators are restarted with wiped data; after syncing they must rejoin consensus.',
      validators: 4,
      genesis: { blockPeriodSeconds: 1, requestTimeoutSeconds: 2 },
      durationMs: 40_000,
      steps: [
        { atMs: 15_000, do: 'crash', node: 'v2' },
        { atMs: 15_000, do: 'crash', node: 'v3' },
        { atMs: 16_000, do: 'restart', node: 'v2', wipe: true },
        { atMs: 16_000, do: 'restart', node: 'v3', wipe: true },
      ],
      expect: [{ kind: 'min-height', height: 25 }],
    },
  },
  {
    id: 'besu-8425',
    switchId: 'besu-8307',
    title: 'QBFT halts right after a non-validator is voted in (25.2.2)',
    link: 'https://github.com/hyperledger/besu/issues/8425',
    rootCause:
      'Reported on 25.2.2 and resolved by 25.3.0, which carries PR #8308, the fix of #8307 (the link rests on the ' +
      'fix release; nobody published a root-cause analysis). The node being voted in had been restarted and passed ' +
      'through a sync, so its height manager was stale; as a non-validator nobody needed it, but once it counts ' +
      'toward the quorum the height cannot complete and no new head arrives to heal it. Shown with the besu-8307 switch.',
    symptom: 'stall',
    caughtBy: ['liveness'],
    affected: { since: '24.10.0', fixedIn: '25.3.0' },
    fidelity: { faithful: false, why: 'its root cause was never published; it re-uses the besu-8307 switch, whose fix resolved it' },
    scenario: {
      name: 'bug-besu-8425',
      description:
        'One validator and one follower: the follower stops, is voted in meanwhile, and syncs the vote block after ' +
        'its restart; the chain must go on with both sealing.',
      validators: 1,
      observers: 1,
      genesis: { blockPeriodSeconds: 1, requestTimeoutSeconds: 2 },
      durationMs: 40_000,
      steps: [
        { atMs: 5_000, do: 'crash', node: 'o0' },
        { atMs: 6_000, do: 'rpc', node: 'v0', method: 'qbft_proposeValidatorVote', params: ['o0', true] },
        { atMs: 10_000, do: 'restart', node: 'o0' },
      ],
      expect: [
        { kind: 'validators-at', block: 7, validators: ['v0', 'o0'] },
        { kind: 'min-height', height: 30 },
      ],
    },
  },
  {
    id: 'besu-8384',
    title: 'BFT: a time-typed mining-beneficiary transition is ignored by the block creator: state root mismatch, halt',
    link: 'https://github.com/hyperledger/besu/issues/8384',
    rootCause:
      'With a time-based hardfork in force (shanghaiTime), Besu\'s protocol schedule compares a QBFT transition\'s ' +
      '`block` with the block timestamp, so import credits the fees and the block reward to the beneficiary of the ' +
      'fork at the block\'s timestamp. Until PR #8387 (25.4.0) the BFT block creator looked the beneficiary up in the ' +
      'fork schedule by block number alone (the reward amount came from the protocol spec at the timestamp). When the ' +
      'two lookups disagree, as for a transition written "block": 40 that the timestamps passed long ago, every ' +
      'proposal carries a state root the other validators do not compute; they reject it in every round and the ' +
      'chain halts. The switch takes the block creator\'s beneficiary from the fork at the block number alone.',
    symptom: 'stall',
    caughtBy: ['liveness'],
    affected: { since: '24.3.0', fixedIn: '25.4.0' },
    fidelity: { faithful: true },
    scenario: {
      name: 'bug-besu-8384',
      description:
        'shanghaiTime 0, a block reward to a mining beneficiary, and a transition "block": 40 naming another ' +
        'beneficiary (a timestamp already passed, so in force from the genesis): blocks must be produced.',
      validators: 4,
      baseGenesis: shanghaiGenesis(
        { blockreward: '0xde0b6b3a7640000', miningbeneficiary: '0x00000000000000000000000000000000000be001' },
        [{ block: 40, miningbeneficiary: '0x00000000000000000000000000000000000be002' }],
      ),
      durationMs: 40_000,
      steps: [],
      expect: [{ kind: 'min-height', height: 30 }],
    },
  },
  {
    id: 'besu-9681',
    title: 'QBFT: a time-typed block-period transition is ignored by the block timer: proposals rejected, round changes',
    link: 'https://github.com/hyperledger/besu/issues/9681',
    rootCause:
      'With a time-based hardfork in force, header validation reads a block-period transition at the block\'s ' +
      'timestamp, but until PR #9785 (26.4.0) the block timer read the block period (and the empty-block period) from ' +
      'the fork schedule by block number alone, where a transition typed by time is never reached. After a transition ' +
      'to a longer period, proposers still build at the old period; every round-0 proposal is rejected as too close ' +
      'to its parent, and each height completes only in a later round whose timestamp is far enough on. The switch ' +
      'makes the block timer read the options at the height\'s number alone.',
    symptom: 'needless round changes',
    caughtBy: ['honest-messages'],
    affected: { since: '24.3.0', fixedIn: '26.4.0' },
    fidelity: { faithful: true },
    scenario: {
      name: 'bug-besu-9681',
      description: 'shanghaiTime 0 and a transition from the timestamp 6 s after the genesis to a 4 s block period: every height must finish in round 0.',
      validators: 4,
      baseGenesis: shanghaiGenesis({}, [{ block: SIM_START_TIME_MS / 1000 + 6, blockperiodseconds: 4 }]),
      durationMs: 40_000,
      steps: [],
      expect: [{ kind: 'round-changes', max: 0 }, { kind: 'min-height', height: 12 }],
    },
  },
  {
    id: 'besu-10052',
    title: 'QBFT: a block-timer expiry processed for a height already imported by sync',
    link: 'https://github.com/besu-eth/besu/pull/10052',
    rootCause:
      'handleBlockTimerExpiry lacked the height <= chain head guard that round expiries got in PR #1575. When sync ' +
      'imported a block while the node\'s block timer for that height was pending, and the timer event was dequeued ' +
      'before the new chain head, the stale height manager started round 0 at a height already in the chain (and ' +
      'would propose if it were the proposer). The switch hands a pending block-timer expiry to the old height manager ' +
      'when a new head arrives.',
    symptom: 'work on an imported height',
    caughtBy: ['round-start'],
    affected: { since: '21.1.0', fixedIn: '26.4.0' },
    fidelity: { faithful: false, why: 'the switch hands a block timer expiry to the old height manager whenever sync imported its height meanwhile; in Besu that needs the expiry dequeued before the new chain head, a race our serial node cannot schedule' },
    scenario: {
      name: 'bug-besu-10052',
      description: 'v3 is cut off for 10 s and catches up by sync, block after block: it must not start rounds at heights it has.',
      validators: 4,
      durationMs: 30_000,
      steps: [
        { atMs: 2_000, do: 'partition', groups: [['v3'], ['v0', 'v1', 'v2']] },
        { atMs: 12_000, do: 'heal' },
      ],
      expect: [{ kind: 'min-height', height: 25 }],
    },
  },
  {
    id: 'ghsa-23rh',
    title: 'Uncapped round number in QBFT/IBFT round changes: unbounded memory (GHSA-23rh-rrqg-wq82)',
    link: 'https://github.com/besu-eth/besu/security/advisories/GHSA-23rh-rrqg-wq82',
    rootCause:
      'RoundChangePayloadValidator only required a target round above 0, and the round-change manager keeps one ' +
      'collection per distinct target round until the node passes that round or the height ends. One validator key ' +
      'sending round changes for many distinct huge rounds grows a node\'s memory for as long as the height lasts. PR ' +
      '#11102 rejects rounds above 1000 (MAX_ALLOWED_ROUND). The switch drops that cap for round changes.',
    symptom: 'unbounded memory',
    caughtBy: ['bounded-state', 'acceptance'],
    affected: { since: '1.0', fixedIn: '26.9.0' },
    fidelity: { faithful: true },
    scenario: {
      name: 'bug-ghsa-23rh',
      description:
        'v3 floods round changes for 1101 distinct rounds above 1000 with each of its own round changes while a 2-2 partition holds a height open for 12 s.',
      validators: 4,
      durationMs: 40_000,
      steps: [
        { atMs: 0, do: 'byzantine', node: 'v3', behaviour: 'round-change-flood' },
        { atMs: 2_500, do: 'partition', groups: [['v0', 'v3'], ['v1', 'v2']] },
        { atMs: 15_000, do: 'heal' },
      ],
      expect: [{ kind: 'min-height', height: 15 }],
    },
  },
];

export function findKnownBug(id: string): KnownBug | undefined {
  return KNOWN_BUGS.find((b) => b.id === id);
}

export function knownBugIds(): string[] {
  return KNOWN_BUGS.map((b) => b.id);
}

/**
 * The checkers a planted switch (node/bugs/bug-switches.ts; no corpus entry) must be caught by for
 * a fuzz find to count: the acceptance checker for a skipped validation rule, validity for the
 * seal and block-period plants. The pub/sub plant has no fuzz checker (a scenario's API check
 * catches it).
 */
export function plantedCaughtBy(id: string): string[] {
  if (id.startsWith('plant-skip-')) return ['acceptance'];
  if (id === 'plant-sync-seals' || id === 'plant-period-early') return ['validity'];
  return [];
}

/** What `fuzz --bug ID` hunts: the switch to turn on and the checkers a find must come from. */
export interface BugHunt {
  switches: string[];
  checkers: string[];
}

/** The hunt for a corpus entry or a planted switch; undefined for an unknown id. */
export function huntOfBug(id: string): BugHunt | undefined {
  const entry = findKnownBug(id);
  if (entry) return { switches: [switchOf(entry)], checkers: [...entry.caughtBy] };
  return isPlantedBugId(id) ? { switches: [id], checkers: plantedCaughtBy(id) } : undefined;
}

import type { Scenario } from '../sim/scenario.ts';

const ETH = '1000000000000000000';
const BENEFICIARY = '0x00000000000000000000000000000000000000be';

// Blocks 1-4 pay 1 ETH to their proposers (v0..v3 in turn); blocks 5-9 pay the beneficiary; from
// block 10 the reward is zero.
export default {
  name: 'reward-transition',
  description: 'Block reward to the proposer, then to a mining beneficiary from block 5, then none from block 10.',
  validators: 4,
  genesis: {
    blockReward: ETH,
    transitions: [
      { block: 5, miningBeneficiary: BENEFICIARY },
      { block: 10, blockReward: '0' },
    ],
  },
  durationMs: 20_000,
  steps: [],
  expect: [
    { kind: 'balance-equals', account: 'v0', wei: ETH },
    { kind: 'balance-equals', account: 'v3', wei: ETH },
    { kind: 'balance-equals', account: BENEFICIARY, wei: '5000000000000000000' },
    { kind: 'min-height', height: 15 },
    { kind: 'no-fork' },
  ],
} satisfies Scenario;

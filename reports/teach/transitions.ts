/**
 * Lesson "transitions" (scenarios switch-to-contract and reward-transition): a genesis
 * `transitions.qbft` entry changes QBFT parameters from a block on. The lesson finds each block
 * whose parameters differ from its parent's and explains what changed: validator selection (and
 * with it the validators, the quorum and the proposer rotation), block reward, mining beneficiary,
 * block period.
 */
import { quorumSize } from '../../node/consensus/qbft/quorum.ts';
import type { QbftForkParams } from '../../node/chain/fork-schedule.ts';
import type { BlockFact } from './chain-facts.ts';
import { shortHex } from '../format.ts';
import { listNames, proposerWhy, quorumText } from './explain.ts';
import type { Lesson, LessonRun, Slide } from './lesson.ts';

const ETH = 10n ** 18n;

function wei(v: bigint): string {
  if (v === 0n) return '0';
  return v % ETH === 0n ? `${v / ETH} ETH` : v % 10n ** 9n === 0n ? `${v / 10n ** 9n} gwei` : `${v} wei`;
}

interface Change {
  field: string;
  from: string;
  to: string;
}

function paramChanges(a: QbftForkParams, b: QbftForkParams): Change[] {
  const out: Change[] = [];
  const cmp = (field: string, x: unknown, y: unknown, show: (v: unknown) => string = (v) => (v === undefined ? 'unset' : String(v))) => {
    if (x !== y) out.push({ field, from: show(x), to: show(y) });
  };
  cmp('blockperiodseconds', a.blockPeriodSeconds, b.blockPeriodSeconds);
  cmp('blockreward', a.blockReward, b.blockReward, (v) => wei(v as bigint));
  cmp('miningbeneficiary', a.miningBeneficiary, b.miningBeneficiary, (v) => (v === undefined ? 'the proposer' : String(v)));
  cmp('validatorselectionmode', a.validatorSelectionMode, b.validatorSelectionMode);
  cmp('validatorcontractaddress', a.validatorContractAddress, b.validatorContractAddress);
  return out;
}

function commitMs(run: LessonRun, height: number): number | null {
  return run.timeline.heights.find((h) => h.height === height)?.firstCommitMs ?? null;
}

async function effects(run: LessonRun, prev: BlockFact, b: BlockFact, changes: Change[]): Promise<string[]> {
  const out: string[] = [];
  for (const c of changes) {
    if (c.field === 'validatorselectionmode' && c.to === 'contract') {
      out.push(`From block ${b.number} the validators come from the contract at ${b.params.validatorContractAddress}: each block's set is what its getValidators() returns on the parent's state, no longer the header votes.`);
    } else if (c.field === 'validatorselectionmode') {
      out.push(`From block ${b.number} the validators come from block-header votes again, starting from the last set.`);
    } else if (c.field === 'blockreward') {
      out.push(`Block reward: ${c.from} -> ${c.to} per block.`);
    } else if (c.field === 'miningbeneficiary') {
      out.push(`The block reward now goes to ${c.to} instead of ${c.from}.`);
    } else if (c.field === 'blockperiodseconds') {
      out.push(`Block period: ${c.from} s -> ${c.to} s: the block timer now waits ${c.to} s after the parent's timestamp.`);
    }
  }
  if (prev.validators.join() !== b.validators.join()) {
    const n0 = prev.validators.length;
    const n1 = b.validators.length;
    const gone = prev.validators.filter((v) => !b.validators.includes(v));
    const added = b.validators.filter((v) => !prev.validators.includes(v));
    out.push(
      `Validators: ${prev.validators.join(' ')} -> ${b.validators.join(' ')}${gone.length ? ` (${listNames(gone)} no longer proposes, and ${gone.length > 1 ? 'their' : 'its'} seals no longer count)` : ''}${added.length ? ` (${listNames(added)} joins)` : ''}. The quorum goes from ${quorumSize(n0)} to ${quorumText(n1)}: block ${b.number} carries ${b.seals} commit seals.`,
      `Proposer of block ${b.number}: ${b.proposer}. ${proposerWhy(run, b.number, b.round)}`,
    );
  }
  if (changes.some((c) => c.field === 'blockreward' || c.field === 'miningbeneficiary')) {
    const who = b.params.miningBeneficiary ?? b.proposer;
    out.push(`So block ${b.number}, proposed by ${b.proposer}, pays ${wei(b.params.blockReward)} to ${run.chain.nameOf(who)}.`);
  }
  return out;
}

async function balanceTable(run: LessonRun, blocks: number[]): Promise<string[]> {
  const accounts = new Set<string>(run.chain.genesisValidators);
  for (const b of run.chain.blocks) if (b.params.miningBeneficiary) accounts.add(b.params.miningBeneficiary);
  if (![...run.chain.blocks].some((b) => b.params.blockReward > 0n)) return [];
  const cols = blocks.map((n) => `after #${n}`);
  const lines = [`${'account'.padEnd(44)}${cols.map((c) => c.padStart(11)).join('')}`];
  for (const a of accounts) {
    const row = await Promise.all(blocks.map((n) => run.chain.balanceAt(a, n)));
    lines.push(`${run.chain.nameOf(a).padEnd(44)}${row.map((v) => wei(v).padStart(11)).join('')}`);
  }
  return lines;
}

async function runSlides(run: LessonRun, part: number): Promise<Slide[]> {
  const c = run.chain;
  const transitions = run.scenario.genesis?.transitions ?? [];
  const out: Slide[] = [
    {
      title: `Transitions, part ${part}: ${run.scenario.name}`,
      run,
      atMs: 0,
      paragraphs: [
        run.scenario.description,
        'A transition is an entry of the genesis config.transitions.qbft list: from its block number on, the QBFT options it names replace the ones before (blockperiodseconds, blockreward, miningbeneficiary, validatorselectionmode with validatorcontractaddress, ...). Every node must have the same list, or they disagree from that block on.',
      ],
      table: [`transitions in this scenario:`, ...transitions.map((t) => `  ${JSON.stringify(t)}`)],
    },
  ];
  const changed: number[] = [];
  for (let i = 1; i < c.blocks.length; i++) {
    const prev = c.blocks[i - 1]!;
    const b = c.blocks[i]!;
    const changes = paramChanges(prev.params, b.params);
    if (changes.length === 0 && prev.validators.join() === b.validators.join()) continue;
    changed.push(b.number);
    out.push({
      title: `Block ${b.number}: ${changes.length ? changes.map((x) => `${x.field} = ${x.to.startsWith('0x') ? shortHex(x.to) : x.to}`).join(', ') : 'the validators change'}`,
      run,
      atMs: commitMs(run, b.number),
      paragraphs: await effects(run, prev, b, changes),
    });
  }
  const head = c.blocks.length;
  const table = await balanceTable(run, [...changed.map((n) => n - 1), head].filter((n, i, a) => n > 0 && a.indexOf(n) === i));
  if (table.length > 0) {
    out.push({
      title: 'Balances: where the rewards went',
      run,
      atMs: commitMs(run, head),
      paragraphs: ['Balances read from the chain state after each block: each row changes only while that account is the one being paid.'],
      table,
    });
  } else if (changed.length > 0) {
    const last = c.blocks[head - 1]!;
    const proposers = c.blocks.filter((b) => b.number >= changed[0]!).slice(0, 9).map((b) => `${b.number}:${b.proposer}`);
    out.push({
      title: 'After the transition',
      run,
      atMs: commitMs(run, head),
      paragraphs: [`Blocks and their proposers from block ${changed[0]}: ${proposers.join(' ')} ... The rotation now runs over ${listNames(last.validators)}.`],
    });
  }
  return out;
}

export const transitions: Lesson = {
  name: 'transitions',
  title: 'Transitions: changing QBFT options at a block',
  summary: 'switching to contract validators, block reward and beneficiary (switch-to-contract, reward-transition)',
  scenarios: ['switch-to-contract', 'reward-transition'],
  async slides(runs: LessonRun[]): Promise<Slide[]> {
    return [...(await runSlides(runs[0]!, 1)), ...(await runSlides(runs[1]!, 2))];
  },
};

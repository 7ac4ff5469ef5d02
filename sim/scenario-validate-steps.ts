/**
 * Checks of a scenario's timeline: each step's time and arguments, then the steps in the order
 * they run, so that a window's end (heal, resume, unclog, restart) comes after its start.
 */
import { BYZANTINE_BEHAVIOURS, isByzantineBehaviour } from './byzantine/names.ts';
import { seconds } from './sim-start.ts';
import type { Fields, NodeNames } from './scenario-fields.ts';
import { checkTransitions } from './scenario-validate-genesis.ts';

export const STEP_KINDS = ['crash', 'restart', 'partition', 'heal', 'pause', 'resume', 'clog', 'unclog', 'byzantine', 'skew', 'vote', 'discard-vote', 'rpc', 'transfer', 'custom', 'private-tx', 'api-clients'] as const;
const MAX_STEPS = 10_000;
const MAX_TRANSFERS_PER_STEP = 10_000;
/** Besu's funded test accounts the runner signs transfers with (sim/keys.ts BESU_TEST_ACCOUNTS). */
const TEST_ACCOUNTS = 3;

export interface StepContext {
  f: Fields;
  names: NodeNames;
  durationMs: number;
  hasBaseGenesis: boolean;
  privacyGroups: string[][];
  behaviours: readonly string[];
  customSteps: readonly string[];
}

type Entry = Record<string, unknown>;

export function checkSteps(c: StepContext, value: unknown): void {
  const steps = c.f.array('steps', value);
  if (steps.length > MAX_STEPS) c.f.fail('steps', `has more than ${MAX_STEPS} entries`);
  steps.forEach((step, i) => checkStep(c, `steps[${i}]`, c.f.object(`steps[${i}]`, step)));
  checkWindows(c.f, steps as Entry[]);
}

function checkStep(c: StepContext, at: string, st: Entry): void {
  const { f, names } = c;
  c.f.time(`${at}.atMs`, st.atMs, c.durationMs);
  f.oneOf(`${at}.do`, st.do, STEP_KINDS);
  const node = () => names.node(`${at}.node`, st.node);
  switch (st.do as (typeof STEP_KINDS)[number]) {
    case 'crash': case 'pause': case 'resume':
      node();
      break;
    case 'restart':
      node();
      f.boolean(`${at}.wipe`, st.wipe);
      if (st.transitions !== undefined) checkTransitions(f, names, `${at}.transitions`, st.transitions, { baseGenesis: c.hasBaseGenesis });
      break;
    case 'partition':
      checkGroups(c, at, st.groups);
      break;
    case 'heal':
      break;
    case 'clog': case 'unclog':
      if (names.node(`${at}.from`, st.from) === names.node(`${at}.to`, st.to)) f.fail(`${at}.to`, `must differ from ${at}.from (a link joins two nodes)`);
      break;
    case 'byzantine':
      node();
      if (!isByzantineBehaviour(st.behaviour) && !c.behaviours.includes(st.behaviour as string)) f.oneOf(`${at}.behaviour`, st.behaviour, [...BYZANTINE_BEHAVIOURS, ...c.behaviours]);
      break;
    case 'skew':
      node();
      f.int(`${at}.ms`, st.ms, -c.durationMs - 3_600_000, c.durationMs + 3_600_000);
      break;
    case 'vote': case 'discard-vote':
      names.nodeList(`${at}.nodes`, st.nodes);
      names.nodeOrAccount(`${at}.subject`, st.subject);
      if (st.do === 'vote' && typeof st.add !== 'boolean') f.fail(`${at}.add`, 'must be true (vote the subject in) or false (vote it out)');
      break;
    case 'rpc':
      node();
      f.string(`${at}.method`, st.method);
      if (st.params !== undefined) f.array(`${at}.params`, st.params);
      break;
    case 'transfer':
      checkTransfer(c, at, st);
      break;
    case 'custom':
      if (!c.customSteps.includes(st.name as string))
        f.fail(`${at}.name`, c.customSteps.length === 0 ? 'names a custom step, and the run was given none' : `must be one of ${c.customSteps.join(', ')}`);
      break;
    case 'private-tx':
      checkPrivateTx(c, at, st);
      break;
    case 'api-clients':
      node();
      f.optionalInt(`${at}.pollEveryMs`, st.pollEveryMs, 1);
      break;
  }
}

/** Partition groups: non-empty, and no node in two of them. */
function checkGroups(c: StepContext, at: string, value: unknown): void {
  const groups = c.f.array(`${at}.groups`, value, 'a non-empty array of groups of node names');
  if (groups.length === 0) c.f.fail(`${at}.groups`, 'must be a non-empty array of groups of node names');
  const groupOf = new Map<string, number>();
  groups.forEach((g, j) => {
    c.names.nodeList(`${at}.groups[${j}]`, g).forEach((name, k) => {
      const other = groupOf.get(name);
      if (other !== undefined) c.f.fail(`${at}.groups[${j}][${k}]:`, `'${name}' is in groups ${other} and ${j} too (groups must not overlap)`);
      groupOf.set(name, j);
    });
  });
}

function checkTransfer(c: StepContext, at: string, st: Entry): void {
  c.f.int(`${at}.count`, st.count, 1, MAX_TRANSFERS_PER_STEP);
  c.f.optionalInt(`${at}.fromAccount`, st.fromAccount, 0, TEST_ACCOUNTS - 1);
  if (st.valueWei !== undefined) c.f.wei(`${at}.valueWei`, st.valueWei);
  if (st.node !== undefined) c.names.node(`${at}.node`, st.node);
  if (st.to !== undefined && st.to !== 'logger') c.names.nodeOrAccount(`${at}.to`, st.to);
}

function checkPrivateTx(c: StepContext, at: string, st: Entry): void {
  const node = c.names.node(`${at}.node`, st.node);
  const groups = c.privacyGroups;
  if (!Number.isInteger(st.group) || (st.group as number) < 0 || (st.group as number) >= groups.length) c.f.fail(`${at}.group`, 'must index privacy.groups');
  if (!groups[st.group as number]!.includes(node)) c.f.fail(`${at}.node`, `must be a member of privacy group ${st.group as number}`);
  c.f.oneOf(`${at}.action`, st.action, ['deploy', 'store']);
  c.f.optionalInt(`${at}.value`, st.value, 0);
}

/**
 * The steps in the order the runner takes them (by time; steps of one time in file order): a resume
 * needs a pause in force, an unclog a clog of that link, and a heal or a restart of a running node
 * must not come before the partition or crash it was meant to end.
 */
function checkWindows(f: Fields, steps: Entry[]): void {
  const order = steps.map((st, index) => ({ st, index })).sort((a, b) => (a.st.atMs as number) - (b.st.atMs as number));
  const describe = (i: number) => `steps[${i}] (${steps[i]!.do as string} at ${seconds(steps[i]!.atMs as number)})`;
  const laterOne = (from: number, match: (st: Entry) => boolean, what: string) => {
    const later = order.slice(from + 1).find((o) => match(o.st));
    return later ? `; ${describe(later.index)} comes later: ${what}` : '';
  };
  let partitioned = false;
  const paused = new Set<string>();
  const clogged = new Set<string>();
  const crashed = new Set<string>();
  order.forEach(({ st, index }, position) => {
    const node = st.node as string;
    const link = `${st.from as string}>${st.to as string}`;
    switch (st.do) {
      case 'partition': partitioned = true; break;
      case 'heal':
        // A heal with nothing to heal is harmless (generated timelines heal at every slot's end); one
        // whose partition comes later and is never healed is a window written backwards.
        if (!partitioned && !order.slice(position + 1).some((o) => o.st.do === 'heal')) {
          const swapped = laterOne(position, (s) => s.do === 'partition', 'a heal must come after its partition');
          if (swapped) f.fail(describe(index), `has no partition to heal${swapped}`);
        }
        partitioned = false;
        break;
      case 'pause': paused.add(node); break;
      case 'resume':
        if (!paused.delete(node)) f.fail(describe(index), `resumes ${node}, which is not paused then${laterOne(position, (s) => s.do === 'pause' && s.node === node, 'a resume must come after its pause')}`);
        break;
      case 'clog': clogged.add(link); break;
      case 'unclog':
        if (!clogged.delete(link)) f.fail(describe(index), `unclogs ${st.from as string} -> ${st.to as string}, which is not clogged then${laterOne(position, (s) => s.do === 'clog' && s.from === st.from && s.to === st.to, 'an unclog must come after its clog')}`);
        break;
      case 'crash': crashed.add(node); break;
      case 'restart': {
        // Restarting a running node is a step of its own; before a crash of the node that nothing
        // restarts, it is a window written backwards.
        const restartedLater = order.slice(position + 1).some((o) => o.st.do === 'restart' && o.st.node === node);
        const swapped = !crashed.has(node) && !restartedLater && laterOne(position, (s) => s.do === 'crash' && s.node === node, 'a restart must come after its crash');
        if (swapped) f.fail(describe(index), `restarts ${node}, which is running then${swapped}`);
        crashed.delete(node);
        break;
      }
    }
  });
}

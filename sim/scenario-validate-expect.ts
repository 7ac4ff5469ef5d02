/** Checks of a scenario's expectations: the kind, the nodes, heights, times and amounts each names. */
import type { Fields, NodeNames } from './scenario-fields.ts';

export const EXPECT_KINDS = [
  'min-height', 'max-height', 'height-by', 'round-changes', 'max-round', 'round-timeouts', 'validators-at', 'no-fork',
  'fork', 'forked-off', 'reorg', 'balance-at-least', 'balance-equals', 'transactions-included', 'no-progress-between',
  'trace-event', 'removed-logs', 'private-logs', 'no-private-state', 'api-streams',
] as const;

/** Round r's timer is requesttimeoutseconds * 2^r: beyond this the expectation could never be met in a run. */
const MAX_TIMEOUT_ROUNDS = 30;

export function checkExpectations(f: Fields, names: NodeNames, value: unknown, durationMs: number): void {
  f.array('expect', value).forEach((e, i) => checkExpectation(f, names, `expect[${i}]`, f.object(`expect[${i}]`, e), durationMs));
}

function checkExpectation(f: Fields, names: NodeNames, at: string, e: Record<string, unknown>, durationMs: number): void {
  f.oneOf(`${at}.kind`, e.kind, EXPECT_KINDS);
  const nodes = (required: boolean) => {
    if (required || e.nodes !== undefined) names.nodeList(`${at}.nodes`, e.nodes);
  };
  switch (e.kind as (typeof EXPECT_KINDS)[number]) {
    case 'min-height': case 'max-height':
      f.height(`${at}.height`, e.height);
      nodes(false);
      break;
    case 'height-by':
      f.time(`${at}.atMs`, e.atMs, durationMs);
      f.height(`${at}.height`, e.height);
      nodes(false);
      break;
    case 'round-changes': case 'max-round':
      checkMinMax(f, at, e);
      break;
    case 'round-timeouts':
      f.int(`${at}.rounds`, e.rounds, 0, MAX_TIMEOUT_ROUNDS);
      break;
    case 'validators-at':
      // The validators of block B come from its parent, B - 1; block 0's are the genesis's own.
      f.int(`${at}.block`, e.block, 1);
      names.nodeOrAccountList(`${at}.validators`, e.validators);
      break;
    case 'forked-off':
      names.node(`${at}.node`, e.node);
      break;
    case 'reorg': case 'removed-logs':
      nodes(false);
      break;
    case 'balance-at-least': case 'balance-equals':
      names.nodeOrAccount(`${at}.account`, e.account);
      f.wei(`${at}.wei`, e.wei);
      break;
    case 'transactions-included':
      f.int(`${at}.min`, e.min, 0);
      break;
    case 'no-progress-between':
      if (f.time(`${at}.fromMs`, e.fromMs, durationMs) > f.time(`${at}.toMs`, e.toMs, durationMs)) f.fail(`${at}.toMs`, `must not be before fromMs (${e.fromMs as number} > ${e.toMs as number})`);
      break;
    case 'trace-event':
      f.string(`${at}.event`, e.event);
      f.int(`${at}.min`, e.min, 0);
      if (e.nonNullField !== undefined) f.string(`${at}.nonNullField`, e.nonNullField);
      break;
    case 'private-logs':
      nodes(true);
      f.optionalInt(`${at}.min`, e.min, 0);
      f.optionalInt(`${at}.removed`, e.removed, 0);
      break;
    case 'no-private-state':
      nodes(true);
      break;
    case 'api-streams':
      nodes(true);
      f.optionalInt(`${at}.minRemovedLogs`, e.minRemovedLogs, 0);
      break;
    case 'no-fork': case 'fork':
      break;
  }
}

function checkMinMax(f: Fields, at: string, e: Record<string, unknown>): void {
  if (e.min === undefined && e.max === undefined) f.fail(at, 'must give min, max or both');
  f.optionalInt(`${at}.min`, e.min, 0);
  f.optionalInt(`${at}.max`, e.max, 0);
  if (e.min !== undefined && e.max !== undefined && (e.min as number) > (e.max as number)) f.fail(`${at}.min`, `must not be above max (${e.min as number} > ${e.max as number})`);
}

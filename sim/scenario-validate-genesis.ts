/** Checks of a scenario's chain: its genesis spec, transitions (the network's, a restart's, a misconfigured node's) and network model. */
import type { Fields, NodeNames } from './scenario-fields.ts';

/** What the runner applies on top of a baseGenesis file; the other genesis fields would be ignored. */
const APPLIED_WITH_BASE_GENESIS = new Set(['blockPeriodSeconds', 'requestTimeoutSeconds', 'duplicateMessageLimit']);

export function checkGenesis(f: Fields, names: NodeNames, value: unknown, hasBaseGenesis: boolean): void {
  if (value === undefined) return;
  const g = f.object('genesis', value);
  f.optionalInt('genesis.blockPeriodSeconds', g.blockPeriodSeconds, 1);
  f.optionalInt('genesis.requestTimeoutSeconds', g.requestTimeoutSeconds, 1);
  f.optionalInt('genesis.duplicateMessageLimit', g.duplicateMessageLimit, 1, 2 ** 31 - 1);
  f.optionalInt('genesis.epochLength', g.epochLength, 1);
  if (g.blockReward !== undefined) f.wei('genesis.blockReward', g.blockReward);
  if (g.miningBeneficiary !== undefined) names.nodeOrAccount('genesis.miningBeneficiary', g.miningBeneficiary);
  f.boolean('genesis.contractMode', g.contractMode);
  if (g.transitions !== undefined) checkTransitions(f, names, 'genesis.transitions', g.transitions, { baseGenesis: false });
  if (hasBaseGenesis) {
    const ignored = Object.keys(g).find((k) => g[k] !== undefined && !APPLIED_WITH_BASE_GENESIS.has(k));
    if (ignored) f.fail(`genesis.${ignored}`, `is not applied with baseGenesis (only ${[...APPLIED_WITH_BASE_GENESIS].join(', ')} are): put it in the baseGenesis file's config.qbft`);
  }
}

/**
 * A list of transitions. `baseGenesis`: they replace a base genesis file's (a restart's or a
 * misconfigured node's), whose alloc cannot take a validator contract.
 */
export function checkTransitions(f: Fields, names: NodeNames, path: string, value: unknown, opts: { baseGenesis: boolean }): void {
  const list = f.array(path, value);
  let contractAt: string | undefined;
  list.forEach((item, i) => {
    const at = `${path}[${i}]`;
    const t = f.object(at, item);
    f.height(`${at}.block`, t.block);
    f.optionalInt(`${at}.blockPeriodSeconds`, t.blockPeriodSeconds, 1);
    if (t.blockReward !== undefined) f.wei(`${at}.blockReward`, t.blockReward);
    if (t.miningBeneficiary !== undefined && t.miningBeneficiary !== '') names.nodeOrAccount(`${at}.miningBeneficiary`, t.miningBeneficiary);
    if (t.validatorSelectionMode !== undefined) f.oneOf(`${at}.validatorSelectionMode`, t.validatorSelectionMode, ['blockheader', 'contract']);
    if (t.validators !== undefined) names.nodeOrAccountList(`${at}.validators`, t.validators);
    if (t.contractValidators === undefined) return;
    names.nodeOrAccountList(`${at}.contractValidators`, t.contractValidators);
    if (opts.baseGenesis) f.fail(`${at}.contractValidators`, "cannot be used with baseGenesis (the validator contract would have to be added to the file's alloc)");
    // The runner deploys one validator contract, listing the first contractValidators.
    if (contractAt !== undefined) f.fail(`${at}.contractValidators`, `is a second validator contract; the run deploys one (${contractAt})`);
    contractAt = `${at}.contractValidators`;
  });
}

/** The network model: latency, loss and delivery faults. */
export function checkNetwork(f: Fields, value: unknown): void {
  if (value === undefined) return;
  const n = f.object('network', value);
  if (n.latency !== undefined) checkLatency(f, n.latency);
  f.probability('network.loss', n.loss);
  f.probability('network.duplicate', n.duplicate);
  f.probability('network.reorder', n.reorder);
  f.optionalInt('network.reorderWindowMs', n.reorderWindowMs, 1);
  f.boolean('network.gossip', n.gossip);
  f.boolean('network.traceMessages', n.traceMessages);
  if (n.maxPeers !== 'all') f.optionalInt('network.maxPeers', n.maxPeers, 1, 10_000);
}

function checkLatency(f: Fields, value: unknown): void {
  const l = f.object('network.latency', value);
  const ms = (name: string) => f.milliseconds(`network.latency.${name}`, l[name]);
  switch (l.kind) {
    case 'fixed':
      ms('ms');
      break;
    case 'uniform':
      if (ms('minMs') > ms('maxMs')) f.fail('network.latency.minMs', `must not be above maxMs (${l.minMs as number} > ${l.maxMs as number})`);
      break;
    case 'normal':
      ms('meanMs');
      ms('sdMs');
      if (l.minMs !== undefined) ms('minMs');
      break;
    default:
      f.oneOf('network.latency.kind', l.kind, ['fixed', 'uniform', 'normal']);
  }
}

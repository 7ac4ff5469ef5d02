/**
 * What a new genesis changes in a running network's configuration. A configuration change keeps
 * the genesis block (header fields, alloc, validators in extraData) and the chain id, and changes
 * `config`: transitions, `config.qbft` options, hardforks after the genesis. Anything else makes a
 * different genesis block or chain id: a new chain, not a change of this one.
 */
import type { Genesis, QbftTransition } from '../../node/chain/genesis.ts';
import { bytesToHex } from '../../node/crypto/bytes.ts';
import { rulingMilestone, type BlockSchedule } from './block-schedule.ts';
import { describeTransition } from './describe-transition.ts';
import { OperatorInputError, type OperatorGenesis } from './operator-genesis.ts';

export interface ConfigChange {
  text: string;
  /** The first block whose rules change (under the schedule that applies it); undefined for options that are not rules of blocks. */
  fromBlock?: number;
  /**
   * Set when the transition's `block` is read as a timestamp (Besu: the hardfork milestone in force
   * at that value is time-based, so the fork is compared with block timestamps): the time, and the
   * hardfork that makes it so.
   */
  readAsTime?: { timestamp: number; milestone: string; milestoneAt: number; beforeGenesis: boolean };
}

/** QBFT options that are each node's own business (timers, queues), not rules its blocks follow. */
const LOCAL_QBFT_OPTIONS = new Set(['requesttimeoutseconds', 'messagequeuelimit', 'duplicatemessagelimit', 'futuremessageslimit', 'futuremessagesmaxdistance', 'gossipedhistorylimit']);

function canonical(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return bytesToHex(v);
  if (v instanceof Map) return canonical(Object.fromEntries([...v].map(([k, x]) => [String(k), x])));
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    const entries = Object.entries(v).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k.toLowerCase())}:${canonical(x)}`).join(',')}}`;
  }
  return JSON.stringify(typeof v === 'string' ? v.toLowerCase() : v) ?? 'undefined';
}

const HEADER_FIELDS = ['timestamp', 'gasLimit', 'difficulty', 'extraData', 'coinbase', 'mixHash', 'nonce', 'parentHash', 'baseFeePerGas', 'excessBlobGas', 'blobGasUsed', 'parentBeaconBlockRoot'] as const;

/** Config keys `Genesis` reads as rules; anything else in `config` that differs makes a new chain. */
function otherConfigKeys(config: Record<string, unknown>, ruleKeys: Set<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).filter(([k]) => !ruleKeys.has(k)));
}

function newChainDifferences(a: Genesis, b: Genesis, ruleKeys: Set<string>): string[] {
  const out: string[] = [];
  if (a.chainId !== b.chainId) out.push(`config.chainId ${a.chainId} -> ${b.chainId}`);
  for (const f of HEADER_FIELDS) if (canonical(a[f]) !== canonical(b[f])) out.push(f === 'extraData' ? 'extraData (the validators)' : f);
  if (canonical(a.alloc) !== canonical(b.alloc)) out.push('alloc');
  const forks = (g: Genesis) => ({ ...Object.fromEntries(Object.entries(g.forkBlocks).map(([k, v]) => [`${k}Block`, v])), ...Object.fromEntries(Object.entries(g.forkTimestamps).map(([k, v]) => [`${k}Time`, v])) });
  const fa = forks(a);
  const fb = forks(b);
  for (const k of new Set([...Object.keys(fa), ...Object.keys(fb)])) {
    // A hardfork moved at the genesis changes the genesis block itself.
    if (fa[k] !== fb[k] && (fa[k] === 0 || fb[k] === 0)) out.push(`config.${k} ${fa[k] ?? 'unset'} -> ${fb[k] ?? 'unset'} (at the genesis)`);
  }
  const oa = otherConfigKeys(a.config, ruleKeys);
  const ob = otherConfigKeys(b.config, ruleKeys);
  for (const k of new Set([...Object.keys(oa), ...Object.keys(ob)])) if (canonical(oa[k]) !== canonical(ob[k])) out.push(`config.${k}`);
  return out;
}

function forkKeysOf(g: Genesis): string[] {
  return Object.keys(g.config).filter((k) => /(block|time)$/.test(k) && k !== 'transitions');
}

function hardforkChanges(a: Genesis, b: Genesis, sched: BlockSchedule): ConfigChange[] {
  const out: ConfigChange[] = [];
  for (const [name, key] of [['forkBlocks', 'Block'], ['forkTimestamps', 'Time']] as const) {
    const x = a[name];
    const y = b[name];
    for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) {
      if (x[k] === y[k] || x[k] === 0 || y[k] === 0) continue;
      const from = Math.min(x[k] ?? Infinity, y[k] ?? Infinity);
      const fromBlock = key === 'Block' ? from : sched.heightAtMs(from * 1000 - sched.genesisTimestampMs) + 1;
      out.push({ text: `config.${k}${key} ${x[k] ?? 'unset'} -> ${y[k] ?? 'unset'}`, fromBlock: Math.max(1, fromBlock) });
    }
  }
  return out;
}

function qbftChanges(a: OperatorGenesis, b: OperatorGenesis): ConfigChange[] {
  const qa = (a.genesis.config.qbft ?? {}) as Record<string, unknown>;
  const qb = (b.genesis.config.qbft ?? {}) as Record<string, unknown>;
  const out: ConfigChange[] = [];
  for (const k of [...new Set([...Object.keys(qa), ...Object.keys(qb)])].sort()) {
    if (canonical(qa[k]) === canonical(qb[k])) continue;
    const text = `config.qbft.${k} ${qa[k] === undefined ? 'unset' : JSON.stringify(qa[k])} -> ${qb[k] === undefined ? 'unset' : JSON.stringify(qb[k])}`;
    // A rule in config.qbft rules every block from block 1: stored blocks included.
    out.push(LOCAL_QBFT_OPTIONS.has(k) ? { text: `${text} (a node's own timer or limit, not a rule of blocks)` } : { text, fromBlock: 1 });
  }
  return out;
}

/** How a transition's `block` is read under `genesis`: as a timestamp when a time-based hardfork rules at that value. */
function readAsTime(genesis: Genesis, t: QbftTransition): ConfigChange['readAsTime'] {
  const m = rulingMilestone(genesis, t.block);
  return m.byTime ? { timestamp: t.block, milestone: m.key!, milestoneAt: m.at, beforeGenesis: t.block <= Number(genesis.timestamp) } : undefined;
}

function transitionChange(text: string, fromBlock: number, time: ConfigChange['readAsTime']): ConfigChange {
  return time ? { text, fromBlock, readAsTime: time } : { text, fromBlock };
}

function transitionChanges(a: OperatorGenesis, b: OperatorGenesis, schedOld: BlockSchedule, schedNew: BlockSchedule): ConfigChange[] {
  const byBlock = (ts: QbftTransition[]) => new Map(ts.map((t) => [t.block, t]));
  const ta = byBlock(a.genesis.transitions);
  const tb = byBlock(b.genesis.transitions);
  const out: ConfigChange[] = [];
  for (const block of [...new Set([...ta.keys(), ...tb.keys()])].sort((x, y) => x - y)) {
    const x = ta.get(block);
    const y = tb.get(block);
    if (canonical(x) === canonical(y)) continue;
    const describe = (t: QbftTransition) => describeTransition(b.standIns, t);
    if (!x) out.push(transitionChange(`transition at ${block} added: ${describe(y!)}`, Math.max(1, schedNew.firstBlockOf(b.genesis, y!)), readAsTime(b.genesis, y!)));
    else if (!y) out.push(transitionChange(`transition at ${block} removed (was: ${describe(x)})`, Math.max(1, schedOld.firstBlockOf(a.genesis, x)), readAsTime(a.genesis, x)));
    else out.push(transitionChange(`transition at ${block} changed: ${describe(x)} -> ${describe(y)}`, Math.max(1, Math.min(schedOld.firstBlockOf(a.genesis, x), schedNew.firstBlockOf(b.genesis, y))), readAsTime(b.genesis, y) ?? readAsTime(a.genesis, x)));
  }
  return out;
}

/** Where a change's rules start, in words: a block, or a time for a transition read as a timestamp (and why). */
export function changeStartText(c: ConfigChange): string {
  if (c.fromBlock === undefined) return '';
  if (!c.readAsTime) return `rules from block ${c.fromBlock}`;
  const { timestamp, milestone, milestoneAt, beforeGenesis } = c.readAsTime;
  const why = `read as a time, because the hardfork in force at ${timestamp} is ${milestone} ${milestoneAt}, a time-based one, and Besu then compares a transition's block with block timestamps`;
  const start = beforeGenesis ? `a time before the genesis block's, so the rules of every block from block ${c.fromBlock}` : Number.isFinite(c.fromBlock) ? `rules from block ${c.fromBlock}, the first block after that time` : 'a time the rehearsal never reaches';
  return `from timestamp ${timestamp} (${why}): ${start}`;
}

/**
 * The configuration changes from `a` to `b`. Throws OperatorInputError when `b` is a new chain
 * (different genesis block or chain id) or changes nothing.
 */
export function compareGenesis(a: OperatorGenesis, b: OperatorGenesis, schedOld: BlockSchedule, schedNew: BlockSchedule): ConfigChange[] {
  const ruleKeys = new Set(['chainid', 'qbft', 'transitions', ...forkKeysOf(a.genesis), ...forkKeysOf(b.genesis)]);
  const newChain = newChainDifferences(a.genesis, b.genesis, ruleKeys);
  if (newChain.length > 0) throw new OperatorInputError(`${b.source}: not a transitions change: a new genesis means a new chain (it differs from ${a.source} in ${newChain.join(', ')})`);
  const changes = [...qbftChanges(a, b), ...hardforkChanges(a.genesis, b.genesis, schedNew), ...transitionChanges(a, b, schedOld, schedNew)];
  if (changes.length === 0) throw new OperatorInputError(`${b.source}: the same configuration as ${a.source}: nothing to rehearse`);
  return changes;
}

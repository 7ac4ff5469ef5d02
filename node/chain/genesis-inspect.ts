/**
 * `qbft-lab genesis inspect`: what a genesis file amounts to: genesis hash and state root, chain
 * id, the validators (from extraData, or the validator contract), the QBFT options, the hardfork
 * schedule and the transitions. The report is plain JSON (bigints as decimal strings).
 */
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { createCommonFromGenesis } from './common.ts';
import { decodeExtraData } from './extra-data.ts';
import { QbftForkSchedule } from './fork-schedule.ts';
import type { Genesis, GenesisConsensus } from './genesis.ts';
import { createGenesisBlock, genesisStateRoot } from './genesis-state.ts';

export type ValidatorsReport =
  | { mode: 'blockheader'; validators: Hex[] }
  | { mode: 'contract'; contractAddress: Hex }
  | { mode: 'none'; error: string };

export interface GenesisReport {
  hash: Hex;
  stateRoot: Hex;
  chainId: string;
  consensus: GenesisConsensus;
  validators: ValidatorsReport;
  qbft: Record<string, string | number>;
  /** The hardforks the node runs, in order; null block and no timestamp = listed but not scheduled. */
  forks: Array<{ name: string; block: number | null; timestamp?: number }>;
  hardforkAtGenesis: string;
  transitions: Array<Record<string, string | number | string[] | null>>;
  allocAccounts: number;
  gasLimit: string;
  timestamp: number;
  baseFeePerGas?: string;
}

function validatorsOf(genesis: Genesis): ValidatorsReport {
  if (genesis.consensus !== 'qbft') return { mode: 'none', error: `not a QBFT genesis (${genesis.consensus})` };
  if (genesis.qbft.validatorContractAddress) return { mode: 'contract', contractAddress: genesis.qbft.validatorContractAddress };
  try {
    return { mode: 'blockheader', validators: decodeExtraData(genesis.extraData).validators };
  } catch (err) {
    return { mode: 'none', error: (err as Error).message };
  }
}

function plain(obj: object): Record<string, string | number | string[] | null> {
  const out: Record<string, string | number | string[] | null> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined) continue;
    out[k] = typeof v === 'bigint' ? v.toString() : (v as string | number | string[] | null);
  }
  return out;
}

export async function inspectGenesis(genesis: Genesis): Promise<GenesisReport> {
  const common = createCommonFromGenesis(genesis);
  const stateRoot = await genesisStateRoot(genesis);
  const block = await createGenesisBlock(genesis, common, stateRoot);
  new QbftForkSchedule(genesis); // same validation the node does at start
  const report: GenesisReport = {
    hash: bytesToHex(keccak256(block.header.serialize())),
    stateRoot: bytesToHex(stateRoot),
    chainId: genesis.chainId.toString(),
    consensus: genesis.consensus,
    validators: validatorsOf(genesis),
    qbft: plain(genesis.qbft) as Record<string, string | number>,
    forks: common.hardforks().map((h) => {
      const f: { name: string; block: number | null; timestamp?: number } = { name: h.name, block: h.block };
      if (h.timestamp !== undefined) f.timestamp = Number(h.timestamp);
      return f;
    }),
    hardforkAtGenesis: block.common.hardfork(),
    transitions: genesis.transitions.map((t) => plain(t)),
    allocAccounts: genesis.alloc.size,
    gasLimit: genesis.gasLimit.toString(),
    timestamp: genesis.timestamp,
  };
  if (block.header.baseFeePerGas !== undefined) report.baseFeePerGas = block.header.baseFeePerGas.toString();
  return report;
}

function scheduled(f: GenesisReport['forks'][number]): string | undefined {
  if (f.timestamp !== undefined) return `time ${f.timestamp}`;
  if (f.block !== null) return `block ${f.block}`;
  return undefined;
}

export function formatGenesisReport(report: GenesisReport): string {
  const lines: string[] = [];
  lines.push(`genesis hash:    ${report.hash}`);
  lines.push(`state root:      ${report.stateRoot}`);
  lines.push(`chain id:        ${report.chainId}`);
  lines.push(`consensus:       ${report.consensus}`);
  lines.push(`timestamp:       ${report.timestamp}`);
  lines.push(`gas limit:       ${report.gasLimit}`);
  if (report.baseFeePerGas !== undefined) lines.push(`base fee:        ${report.baseFeePerGas}`);
  lines.push(`alloc accounts:  ${report.allocAccounts}`);
  const v = report.validators;
  if (v.mode === 'blockheader') {
    lines.push(`validators:      ${v.validators.length} (block header)`);
    for (const a of v.validators) lines.push(`  ${a}`);
  } else if (v.mode === 'contract') {
    lines.push(`validators:      contract ${v.contractAddress}`);
  } else {
    lines.push(`validators:      none (${v.error})`);
  }
  if (report.consensus === 'qbft') {
    lines.push('qbft:');
    for (const [k, val] of Object.entries(report.qbft)) lines.push(`  ${k}: ${val}`);
  }
  lines.push(`hardforks (at genesis: ${report.hardforkAtGenesis}):`);
  report.forks.forEach((f, i) => {
    const next = report.forks.slice(i + 1).find((later) => scheduled(later) !== undefined);
    const at = scheduled(f) ?? (next ? `with ${next.name} (${scheduled(next)})` : 'not scheduled');
    lines.push(`  ${f.name}: ${at}`);
  });
  if (report.transitions.length > 0) {
    lines.push('transitions:');
    for (const t of report.transitions) {
      const { block, ...rest } = t;
      const parts = Object.entries(rest).map(([k, val]) => `${k}=${Array.isArray(val) ? `[${val.join(', ')}]` : val === null ? '(cleared)' : val}`);
      lines.push(`  block ${block}: ${parts.join(' ')}`);
    }
  }
  return lines.join('\n') + '\n';
}

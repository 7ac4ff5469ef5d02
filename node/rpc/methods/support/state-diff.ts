/**
 * Besu's "stateDiff" trace type (trace_replayBlockTransactions, trace_call): which accounts one
 * transaction changed, field by field (besu: ethereum/api/.../results/tracing/diff/
 * StateTraceGenerator.java, AccountDiff.java, DiffNode.java, StateDiffTrace.java, TracingUtils.java;
 * snapshot 3fd224e2).
 *
 * The changes come from the EVM runner's recorder (execution/tracers/state-changes.ts).
 *
 * Shape (StateDiffTrace, a TreeMap by address): `{ "0x<address>": { balance, code, nonce, storage } }`
 * where each field is `"="` (unchanged), `{"+": to}` (the account did not exist before),
 * `{"-": from}` (the account was deleted), or `{"*": {"from": .., "to": ..}}`; storage maps each
 * written slot whose value changed (keys and values as 32-byte words, sorted by key) to `{"+": to}`
 * for a new account (non-zero values only) or `{"*": ..}`. A deleted account lists no storage.
 * balance and nonce are minimal hex ("0x0"), code is the bytecode ("0x" for none).
 */
import { bytesToHex } from '../../../crypto/bytes.ts';
import type { AccountChange, AccountState } from '../../../execution/tracers/state-changes.ts';
import { quantity } from '../../params.ts';

export type DiffNode = '=' | { '+': string } | { '-': string } | { '*': { from: string; to: string } };

export interface AccountDiffJson {
  balance: DiffNode;
  code: DiffNode;
  nonce: DiffNode;
  storage: Record<string, DiffNode>;
}

const wordHex = (v: bigint): string => `0x${v.toString(16).padStart(64, '0')}`;

function node(from: string | undefined, to: string | undefined): DiffNode {
  if (from === undefined) return to === undefined ? '=' : { '+': to };
  if (to === undefined) return { '-': from };
  return from.toLowerCase() === to.toLowerCase() ? '=' : { '*': { from, to } };
}

function fields(s: AccountState | undefined): { balance?: string; code?: string; nonce?: string } {
  return s ? { balance: quantity(s.balance), code: bytesToHex(s.code), nonce: quantity(s.nonce) } : {};
}

/** Besu's StateDiffTrace of one transaction's changes (accounts without a difference left out). */
export function formatStateDiff(changes: readonly AccountChange[]): Record<string, AccountDiffJson> {
  const entries: Array<[string, AccountDiffJson]> = [];
  for (const c of changes) {
    if (!c.pre && !c.post) continue; // created and removed again within the transaction
    const before = fields(c.pre);
    const after = fields(c.post);
    const storage: Record<string, DiffNode> = {};
    if (c.post) {
      for (const s of [...c.storage].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
        if (!c.pre) {
          if (s.post !== 0n) storage[s.key] = { '+': wordHex(s.post) };
        } else if (s.pre !== s.post) storage[s.key] = { '*': { from: wordHex(s.pre), to: wordHex(s.post) } };
      }
    }
    const diff: AccountDiffJson = {
      balance: node(before.balance, after.balance),
      code: node(before.code, after.code),
      nonce: node(before.nonce, after.nonce),
      storage,
    };
    const changed = diff.balance !== '=' || diff.code !== '=' || diff.nonce !== '=' || Object.keys(storage).length > 0;
    if (changed) entries.push([c.address.toLowerCase(), diff]);
  }
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries);
}

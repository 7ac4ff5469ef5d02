/**
 * Agreement: no two honest nodes import different blocks at one height. Blocks are compared by
 * their on-chain hash computed here from the imported RLP (round and seals left out, so the same
 * block committed with other seals or in another round is the same block); the hash the node
 * reported is used only when its block could not be read.
 */
import type { Observation } from './observation.ts';
import { ModelChecker, lineText } from './violation.ts';
import type { Hex } from './toolkit/crypto.ts';

export class AgreementChecker extends ModelChecker {
  readonly name = 'agreement' as const;
  private readonly firstAt = new Map<number, { identity: Hex; node: string; atMs: number }>();


  observe(o: Observation): void {
    if (this.stopped || o.type !== 'block-imported' || !this.model.honest(o.node)) return;
    const imported = this.model.imported(o);
    const identity = imported.ok ? imported.tracked.block.onchainHash : o.hash;
    const first = this.firstAt.get(o.number);
    if (!first) {
      this.firstAt.set(o.number, { identity, node: o.node, atMs: o.atMs });
      return;
    }
    if (first.identity === identity) return;
    this.report({
      atMs: o.atMs,
      node: o.node,
      height: o.number,
      round: imported.ok && !('error' in imported.tracked.block.extra) ? imported.tracked.block.extra.round : null,
      reason: `${o.node} imported block ${identity} at height ${o.number}, but ${first.node} imported ${first.identity} there at ${first.atMs} ms`,
      line: lineText(o.line),
    });
  }
}

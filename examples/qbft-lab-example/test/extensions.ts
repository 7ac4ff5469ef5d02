// The project's own additions to qbft-lab: a checker, a Byzantine behaviour and a scenario step.
import { ModelChecker, type Behaviour, type CheckerFactory, type CustomStep, type Observation } from 'qbft-lab';

const COMMIT_CODE = 0x14;

/** Fails the run when any node imports a block above `maxHeight` (a property of this project's tests). */
export function heightCap(maxHeight: number): CheckerFactory {
  return (model, onViolation) =>
    new (class extends ModelChecker {
      readonly name = 'height-cap';
      observe(o: Observation): void {
        if (this.stopped || o.type !== 'block-imported' || o.number <= maxHeight) return;
        this.report({ atMs: o.atMs, node: o.node, height: o.number, round: null, reason: `block ${o.number} is above the cap ${maxHeight}`, line: JSON.stringify(o.line) });
      }
    })(model, onViolation);
}

/** Never sends its own commit messages; everything else goes out unchanged. */
export const muteCommits: Behaviour = {
  plan(kit, out) {
    if (out.own && out.code === COMMIT_CODE) {
      kit.act('mute-commits:dropped');
      return [];
    }
    return [{ protocol: 'istanbul', code: out.code, data: out.data }];
  },
};

/** Crashes the node named in args.node (as an operator pulling the plug). */
export const pullPlug: CustomStep = (world, args) => {
  world.crash((args as { node: string }).node);
};

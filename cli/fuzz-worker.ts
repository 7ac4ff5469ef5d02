/** One worker process of `fuzz --jobs` (started by cli/fuzz-workers.ts): runs the cases the parent sends, one at a time. */
import { runFuzzCase, type FuzzCaseSpec } from '../sim/fuzz.ts';
import type { FromWorker, ToWorker } from './fuzz-workers.ts';

const { spec, timed } = JSON.parse(process.argv[2]) as { spec: FuzzCaseSpec; timed: boolean };
const send = (message: FromWorker) => process.send!(message);
// The parent is gone (or done with us).
process.on('disconnect', () => process.exit(0));

process.on('message', async ({ position, caseIndex }: ToWorker) => {
  try {
    const outcome = await runFuzzCase(spec, caseIndex, timed ? { wallClock: () => performance.now() } : {});
    send({ kind: 'outcome', position, outcome });
  } catch (err) {
    send({ kind: 'threw', position, message: String((err as Error)?.message ?? err), stack: (err as Error)?.stack });
  }
});

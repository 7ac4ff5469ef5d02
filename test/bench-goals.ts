/**
 * The speed goals of the project, each measured the way a user meets it: the `qbft-lab` command in
 * a fresh process (wall time includes start-up), with the peak RSS of that process (and of its
 * workers, for fuzz). One JSON line per row with its goal and whether it is met.
 *
 * Peak RSS comes from a preloaded module (scripts/peak-rss.cjs) that prints the process's own
 * `resourceUsage().maxRSS` on exit; NODE_OPTIONS carries it into fuzz workers.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const rootDir = fileURLToPath(new URL('..', import.meta.url));
const PEAK_RSS_MARK = 'qbft-lab-peak-rss-kib ';

export interface GoalRow {
  run: string;
  args: string[];
  /** Simulated seconds (speed rows) or runs (fuzz). */
  work: number;
  measure: 'speedup' | 'runs-per-minute' | 'seconds';
  goal: number;
  /** A memory goal in MiB, where the issue set one. */
  peakRssGoalMiB?: number;
}

export function goalRows(quick: boolean): GoalRow[] {
  // Every node keeps to Besu's default --max-peers (25), so 100 validators are a partial mesh.
  const sim = (validators: number, seconds: number, goal: number, peakRssGoalMiB?: number): GoalRow => ({
    run: `sim --validators ${validators} --duration ${seconds}s${validators > 26 ? ' (max-peers 25)' : ''}`,
    args: ['sim', '--validators', String(validators), '--duration', `${seconds}s`],
    work: seconds,
    measure: 'speedup',
    goal,
    peakRssGoalMiB,
  });
  const fuzzRuns = quick ? 20 : 100;
  return [
    sim(4, quick ? 600 : 3600, 500),
    sim(16, quick ? 30 : 120, 60),
    sim(100, quick ? 2 : 10, 3, 1024),
    { run: `fuzz --runs ${fuzzRuns} --seed 1`, args: ['fuzz', '--runs', String(fuzzRuns), '--seed', '1', '--json'], work: fuzzRuns, measure: 'runs-per-minute', goal: 250 },
    { run: 'help', args: ['help'], work: 0, measure: 'seconds', goal: 0.3 },
    // A transition at block 1,000,000 rehearsed at that height (sim/operator/fast-prefix.ts).
    {
      run: 'rehearse --at-block 999990 (a transition at block 1,000,000)',
      args: ['rehearse', '--genesis-file', 'test/fixtures/operator/old.json', '--new-genesis', 'test/fixtures/operator/new-reward-at-1000000.json', '--at-block', '999990', '--restart-window', '6s'],
      work: 0,
      measure: 'seconds',
      goal: 60,
      peakRssGoalMiB: 1024,
    },
  ];
}

interface ChildResult {
  wallSeconds: number;
  exitCode: number | null;
  peakRssMiB: number | undefined;
}

function runCli(args: string[]): Promise<ChildResult> {
  const preload = fileURLToPath(new URL('../scripts/peak-rss.cjs', import.meta.url));
  const env = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require=${preload}`.trim() };
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/qbft-lab.js', ...args], { cwd: rootDir, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      stderr = (stderr + d).slice(-65_536);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const wallSeconds = (performance.now() - start) / 1000;
      const peaks = stderr
        .split('\n')
        .filter((l) => l.startsWith(PEAK_RSS_MARK))
        .map((l) => Number(l.slice(PEAK_RSS_MARK.length)));
      const peakRssMiB = peaks.length > 0 ? Math.round(Math.max(...peaks) / 1024) : undefined;
      resolve({ wallSeconds, exitCode: code, peakRssMiB });
    });
  });
}

export async function runGoalBench(quick: boolean, emit: (figure: Record<string, unknown>) => void): Promise<void> {
  for (const row of goalRows(quick)) {
    const r = await runCli(row.args);
    const measured =
      row.measure === 'speedup' ? row.work / r.wallSeconds : row.measure === 'runs-per-minute' ? (row.work * 60) / r.wallSeconds : r.wallSeconds;
    const met = row.measure === 'seconds' ? measured <= row.goal : measured >= row.goal;
    const rssMet = row.peakRssGoalMiB === undefined || (r.peakRssMiB !== undefined && r.peakRssMiB <= row.peakRssGoalMiB);
    emit({
      figure: 'goal',
      run: `qbft-lab ${row.run}`,
      quick,
      wallSeconds: +r.wallSeconds.toFixed(2),
      [row.measure]: +measured.toFixed(row.measure === 'seconds' ? 2 : 1),
      goal: `${row.measure === 'seconds' ? '<=' : '>='} ${row.goal}${row.measure === 'speedup' ? 'x' : row.measure === 'seconds' ? ' s' : ' runs/min'}`,
      peakRssMiB: r.peakRssMiB,
      ...(row.peakRssGoalMiB === undefined ? {} : { peakRssGoal: `<= ${row.peakRssGoalMiB} MiB` }),
      met: met && rssMet && r.exitCode === 0,
      exitCode: r.exitCode,
    });
  }
}

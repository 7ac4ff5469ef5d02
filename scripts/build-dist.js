// `npm run build`: compiles the CLI to JavaScript in dist/ (tsconfig.build.json) so that
// bin/qbft-lab.js starts without the tsx loader. Type errors are `npm run typecheck`'s job.
//   node scripts/build-dist.js                 build dist/
//   node scripts/build-dist.js --out-dir DIR   build into DIR instead (tests)
//   node scripts/build-dist.js --if-possible   as `prepare`: skip with a note when TypeScript is
//                                              not installed (npm ci --omit=dev)
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DIST_DIR, STAMP_FILE, sourceSnapshot } from '../bin/dist-freshness.js';

const rootDir = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { 'out-dir': { type: 'string' }, 'if-possible': { type: 'boolean' } } });
const outDir = resolve(rootDir, values['out-dir'] ?? DIST_DIR);

let tscPath;
try {
  tscPath = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  if (values['if-possible']) {
    console.error('qbft-lab build: TypeScript is not installed; dist/ not built (the CLI runs the sources through tsx)');
    process.exit(0);
  }
  throw new Error('TypeScript is not installed (npm ci installs it)');
}

// Stat the sources before compiling: one edited meanwhile leaves dist/ stale, not falsely fresh.
const snapshot = sourceSnapshot(rootDir);
const startedMs = performance.now();
// Build next to the target and swap it in, so a running CLI never sees a half-written dist/.
const buildingDir = `${outDir}.building-${process.pid}`;
rmSync(buildingDir, { recursive: true, force: true });
mkdirSync(buildingDir, { recursive: true });
const tsc = spawnSync(process.execPath, [tscPath, '-p', join(rootDir, 'tsconfig.build.json'), '--outDir', buildingDir], { stdio: 'inherit' });
if (tsc.status !== 0) {
  rmSync(buildingDir, { recursive: true, force: true });
  console.error(`qbft-lab build: tsc failed (${tsc.signal ?? `exit code ${tsc.status}`})`);
  process.exit(1);
}
writeFileSync(join(buildingDir, STAMP_FILE), `${JSON.stringify({ builtAt: new Date().toISOString(), ...snapshot }, null, 2)}\n`);
const oldDir = `${outDir}.old-${process.pid}`;
try {
  renameSync(outDir, oldDir);
} catch (err) {
  if (err.code !== 'ENOENT') throw err;
}
renameSync(buildingDir, outDir);
rmSync(oldDir, { recursive: true, force: true });
console.error(`qbft-lab build: ${snapshot.fileCount} sources compiled into ${outDir} in ${((performance.now() - startedMs) / 1000).toFixed(1)} s`);

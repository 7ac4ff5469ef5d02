#!/usr/bin/env node
// Entry point: runs the CLI compiled into dist/ (`npm run build`, run by `npm ci`) when it was
// built from the sources as they are now; otherwise the TypeScript sources through the tsx
// loader, which transpiles them on every start (about 1 s).
import { fileURLToPath } from 'node:url';
import { distIsFresh } from './dist-freshness.js';

const rootDir = fileURLToPath(new URL('..', import.meta.url));
let main;
if (distIsFresh(rootDir)) {
  ({ main } = await import('../dist/cli/main.js'));
} else {
  process.stderr.write("qbft-lab: dist/ is missing or older than the sources, running them through tsx (slower start; 'npm run build' compiles them)\n");
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));

/**
 * The two test lanes. `npm test` (ava.config.js) runs everything except E2E: in-process tests of
 * the node, the simulator, the CLI and the reports. `npm run test:e2e` (ava.e2e.config.js) runs
 * E2E: tests that start qbft-lab processes or networks of them, drive a browser, Hardhat or the
 * packed package, or talk to another client's code over real sockets (interop).
 */
export const E2E = [
  'test/live-*.test.ts',
  'test/network-*.test.ts',
  'test/besu-tutorial.test.ts',
  'test/build.test.ts',
  'test/example-project.test.ts',
  'test/hardhat.test.ts',
  'test/client-*.test.ts',
  'test/fuzz-jobs.test.ts',
  'test/devp2p-interop.test.ts',
  'node/p2p/rlpx/rlpx-interop.test.ts',
  'node/p2p/discovery/dpt-interop.test.ts',
  'reports/html.browser.test.ts',
];

export const ALL = ['node/**/*.test.ts', 'sim/**/*.test.ts', 'scenarios/**/*.test.ts', 'reports/**/*.test.ts', 'cli/**/*.test.ts', 'test/**/*.test.ts'];

export const COMMON = {
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  timeout: '5m',
  concurrency: 2,
  workerThreads: false,
};

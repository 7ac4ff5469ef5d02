export default {
  files: ['node/**/*.test.ts', 'sim/**/*.test.ts', 'scenarios/**/*.test.ts', 'reports/**/*.test.ts', 'cli/**/*.test.ts', 'test/**/*.test.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  timeout: '5m',
  concurrency: 2,
  workerThreads: false,
};

// The fast lane (`npm test`); the end-to-end lane is ava.e2e.config.js. test/lanes.js says which is which.
import { ALL, COMMON, E2E } from './test/lanes.js';

// Worker threads rather than a process per test file, and three of them on two cores: starting a
// test file is mostly loading the sources through tsx, and a thread starts cheaper than a process
// (the lane ran in 301 s against 326 s with processes here). The end-to-end lane keeps processes.
export default {
  ...COMMON,
  workerThreads: true,
  nodeArguments: [],
  require: ['./test/register-tsx.js'],
  concurrency: 3,
  files: [...ALL, ...E2E.map((glob) => `!${glob}`)],
};

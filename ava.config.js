// The fast lane (`npm test`); the end-to-end lane is ava.e2e.config.js. test/lanes.js says which is which.
import { ALL, COMMON, E2E } from './test/lanes.js';

// Three test processes on two cores: a process spends part of its start loading modules through
// tsx's loader thread, and a third keeps both cores busy meanwhile.
export default { ...COMMON, concurrency: 3, files: [...ALL, ...E2E.map((glob) => `!${glob}`)] };

// The fast lane (`npm test`); the end-to-end lane is ava.e2e.config.js. test/lanes.js says which is which.
import { ALL, COMMON, E2E } from './test/lanes.js';

export default { ...COMMON, files: [...ALL, ...E2E.map((glob) => `!${glob}`)] };

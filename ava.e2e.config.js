// The end-to-end lane (`npm run test:e2e`): live processes, browser, Hardhat, packaging and interop.
import { COMMON, E2E } from './test/lanes.js';

export default { ...COMMON, files: E2E };

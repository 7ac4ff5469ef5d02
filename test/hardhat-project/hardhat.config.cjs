// A Hardhat 2 project as a dApp developer would have it, pointed at a qbft-lab network
// (QBFT_URL) and compiled for EVM_VERSION (cancun or osaka). The compiler is solc-js from npm
// (the `solc` package), so nothing is downloaded. test/hardhat.test.ts copies it to a scratch
// folder and puts the contract sources (from test/contracts) in contracts/.
const { subtask } = require('hardhat/config');
const { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } = require('hardhat/builtin-tasks/task-names');
const solc = require('solc');

const SOLC_VERSION = solc.version().split('+')[0];

subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args, _hre, runSuper) => {
  if (args.solcVersion !== SOLC_VERSION) return runSuper();
  return { compilerPath: require.resolve('solc/soljson.js'), isSolcJs: true, version: SOLC_VERSION, longVersion: solc.version() };
});

module.exports = {
  solidity: { version: SOLC_VERSION, settings: { evmVersion: process.env.EVM_VERSION ?? 'cancun', optimizer: { enabled: true, runs: 200 } } },
  networks: {
    qbft: { url: process.env.QBFT_URL ?? 'http://127.0.0.1:8545', accounts: [process.env.DEPLOYER_KEY ?? ''], chainId: 1337 },
  },
};

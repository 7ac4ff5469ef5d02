// Deploys the contract for the compiled EVM version and calls it through Hardhat's provider
// (transactions signed locally by Hardhat, sent as eth_sendRawTransaction). Prints one JSON line.
const hre = require('hardhat');

async function send(provider, from, tx) {
  const hash = await provider.request({ method: 'eth_sendTransaction', params: [{ from, ...tx }] });
  for (let i = 0; i < 300; i++) {
    const receipt = await provider.request({ method: 'eth_getTransactionReceipt', params: [hash] });
    if (receipt) return receipt;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no receipt for ${hash}`);
}

async function main() {
  const provider = hre.network.provider;
  const [from] = await provider.request({ method: 'eth_accounts', params: [] });
  const osaka = process.env.EVM_VERSION === 'osaka';
  const artifact = await hre.artifacts.readArtifact(osaka ? 'LeadingZeros' : 'TransientCounter');
  const iface = new (require('ethers').Interface)(artifact.abi);
  const deployed = await send(provider, from, { data: artifact.bytecode, gas: '0x200000' });
  const to = deployed.contractAddress;
  let answer;
  if (osaka) {
    const out = await provider.request({ method: 'eth_call', params: [{ to, data: iface.encodeFunctionData('leadingZeros', [1]) }, 'latest'] });
    answer = iface.decodeFunctionResult('leadingZeros', out)[0].toString();
  } else {
    const bumped = await send(provider, from, { to, data: iface.encodeFunctionData('bump', []), gas: '0x100000' });
    if (bumped.status !== '0x1') throw new Error(`bump failed: ${JSON.stringify(bumped)}`);
    const out = await provider.request({ method: 'eth_call', params: [{ to, data: iface.encodeFunctionData('count', []) }, 'latest'] });
    answer = iface.decodeFunctionResult('count', out)[0].toString();
  }
  console.log(JSON.stringify({ evmVersion: process.env.EVM_VERSION, deployStatus: deployed.status, contract: to, answer }));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});

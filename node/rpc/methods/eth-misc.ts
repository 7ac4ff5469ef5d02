/**
 * eth_chainId, eth_syncing, eth_accounts, eth_mining, eth_protocolVersion (besu:
 * ethereum/api/.../internal/methods/EthChainId.java, EthSyncing.java, EthAccounts.java,
 * EthMining.java, EthProtocolVersion.java, results/SyncingResult.java; snapshot 3fd224e2).
 * Besu 26.x registers no eth_coinbase (the name is only in RpcMethod: -32604 via the core).
 * eth_protocolVersion: the highest eth capability, eth/68 here -> "0x44".
 */
import { qty } from '../formatters/hex.ts';
import type { NodeApi } from '../node-api.ts';
import type { RpcMethodSpec } from '../registry.ts';
import { ETH_VERSION } from '../../p2p/eth-messages.ts';

export function ethMiscMethods(api: NodeApi): RpcMethodSpec[] {
  return [
    { name: 'eth_chainId', group: 'ETH', handler: () => qty(api.chainId) },
    {
      name: 'eth_syncing',
      group: 'ETH',
      handler: () => {
        const s = api.syncStatus();
        if (!s) return false;
        return { startingBlock: qty(s.startingBlock), currentBlock: qty(s.currentBlock), highestBlock: qty(s.highestBlock) };
      },
    },
    { name: 'eth_accounts', group: 'ETH', handler: () => [] },
    { name: 'eth_mining', group: 'ETH', handler: () => api.node.miningState() === 'RUNNING' },
    { name: 'eth_protocolVersion', group: 'ETH', handler: () => qty(ETH_VERSION) },
  ];
}

/**
 * admin_ and miner_ methods (besu: ethereum/api/.../internal/methods/AdminNodeInfo.java,
 * AdminPeers.java, AdminAddPeer.java, AdminRemovePeer.java, AdminModifyPeer.java,
 * results/PeerResult.java, NetworkResult.java, ProtocolsResult.java, methods/miner/MinerStart.java,
 * MinerStop.java; consensus/common/.../bft/blockcreation/BftMiningCoordinator.java; snapshot 3fd224e2).
 *
 * - admin_addPeer / admin_removePeer: the enode is validated as Besu does (wrong parameter count:
 *   -32602 "Invalid number of params"; a node id that is not 128 hex digits: -32000 "Invalid node
 *   ID..."; any other malformed enode: -32700 "Parse error", Besu's own choice). Dialing needs a
 *   transport that can: when the node's transport offers addPeer/removePeer they answer its
 *   result (Besu: whether the maintained-peer set changed); the simulator's virtual network does
 *   not dial, so there they answer -32000 "P2P has been disabled. This functionality is not available".
 * - admin_peers: what the transport knows about each connected peer (PeerDirectory.peerInfo when
 *   offered, else only the peer id).
 * - miner_start / miner_stop: Besu's BftMiningCoordinator state machine. As in Besu, they only
 *   change that state (and eth_mining); the node keeps taking part in QBFT (proposing included).
 */
import { ETH_VERSION } from '../../p2p/eth-messages.ts';
import { rpcError } from '../errors.ts';
import { qty } from '../formatters/hex.ts';
import type { NodeApi } from '../node-api.ts';
import { paramLength } from '../params.ts';
import type { RpcMethodSpec } from '../registry.ts';

/** Optional capabilities a transport may offer for the admin methods. */
export interface PeerDirectory {
  peerInfo?(peer: string): { nodeId?: string; clientId?: string; remoteAddress?: string; localAddress?: string; inbound?: boolean; port?: number; capabilities?: string[] } | undefined;
  addPeer?(enode: string): boolean;
  removePeer?(enode: string): boolean;
}

const ENODE = /^enode:\/\/([^@]*)@([^:/?]+|\[[0-9a-fA-F:.]+\]):(\d{1,5})(\?discport=(\d{1,5}))?$/;

/** EnodeURLImpl.fromString, as far as the errors go. */
function parseEnode(x: unknown): string {
  if (typeof x !== 'string') throw rpcError('INVALID_ENODE_PARAMS');
  const m = ENODE.exec(x);
  if (!m) throw rpcError('PARSE_ERROR');
  if (!/^[0-9a-fA-F]{128}$/.test(m[1])) throw rpcError('ENODE_ID_INVALID');
  const port = Number(m[3]);
  if (port > 65535) throw rpcError('PARSE_ERROR');
  return x;
}

function capitalize(name: string): string {
  return name.replace(/([A-Z])/g, ' $1').replace(/^./, (c) => c.toUpperCase());
}

export function adminMethods(api: NodeApi): RpcMethodSpec[] {
  const directory = (): PeerDirectory => api.peerDirectory;
  const modify = (op: 'addPeer' | 'removePeer') => (params: unknown[]) => {
    if (paramLength(params) !== 1) throw rpcError('INVALID_PARAM_COUNT');
    const enode = parseEnode(params[0]);
    const fn = directory()[op];
    if (typeof fn !== 'function') throw rpcError('P2P_DISABLED');
    return fn.call(directory(), enode);
  };
  return [
    {
      name: 'admin_nodeInfo',
      group: 'ADMIN',
      handler: () => {
        if (!api.p2pEnabled) throw rpcError('P2P_DISABLED');
        const head = api.head();
        const common = api.node.common.copy();
        common.setHardforkBy({ blockNumber: BigInt(head.number), timestamp: BigInt(head.timestamp) });
        return {
          enode: api.enode(),
          id: api.nodeId(),
          ip: api.p2pHost,
          listenAddr: `${api.p2pHost}:${api.p2pPort}`,
          name: api.clientVersion,
          ports: { discovery: api.p2pPort, listener: api.p2pPort },
          protocols: {
            eth: {
              config: api.node.config.genesis.config,
              difficulty: Number(head.td),
              genesis: api.node.genesisBlock().hash,
              head: head.hash,
              network: Number(api.networkId),
            },
          },
          activeFork: capitalize(common.hardfork()),
        };
      },
    },
    {
      name: 'admin_peers',
      group: 'ADMIN',
      handler: () => {
        if (!api.p2pEnabled) throw rpcError('P2P_DISABLED');
        return api.peers().map((peer) => {
          const info = directory().peerInfo?.(peer) ?? {};
          const id = info.nodeId ?? peer;
          const remote = info.remoteAddress ?? peer;
          return {
            version: qty(5),
            name: info.clientId ?? peer,
            caps: info.capabilities ?? [`eth/${ETH_VERSION}`, 'istanbul/100'],
            network: { localAddress: info.localAddress ?? `${api.p2pHost}:${api.p2pPort}`, remoteAddress: remote, inbound: info.inbound ?? false },
            port: qty(info.port ?? 0),
            id: info.nodeId ? `0x${info.nodeId}` : id,
            protocols: { eth: { difficulty: qty(0), head: '0x', version: ETH_VERSION } },
            enode: info.nodeId ? `enode://${info.nodeId}@${remote}` : `enode://${peer}`,
          };
        });
      },
    },
    { name: 'admin_addPeer', group: 'ADMIN', handler: modify('addPeer') },
    { name: 'admin_removePeer', group: 'ADMIN', handler: modify('removePeer') },
  ];
}

export function minerMethods(api: NodeApi): RpcMethodSpec[] {
  const node = api.node;
  return [
    {
      name: 'miner_start',
      group: 'MINER',
      // BftMiningCoordinator.enable(): RUNNING or IDLE stay; PAUSED -> IDLE; STOPPED -> false
      handler: () => node.startMining(),
    },
    {
      name: 'miner_stop',
      group: 'MINER',
      // BftMiningCoordinator.disable(): PAUSED stays; IDLE or RUNNING -> PAUSED; STOPPED -> false
      handler: () => node.stopMining(),
    },
  ];
}

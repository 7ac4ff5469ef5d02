/**
 * net_ and web3_ (besu: ethereum/api/.../internal/methods/NetVersion.java, NetListening.java,
 * NetPeerCount.java, NetEnode.java, NetServices.java, Web3ClientVersion.java, Web3Sha3.java).
 *
 * - net_version: the network id as a decimal string (Besu --network-id; default the chain id).
 * - net_services: qbft-lab does not know which transports are running from here, so it answers
 *   with the services passed in (an empty object by default, as Besu with nothing enabled).
 * - web3_sha3: data must be "0x"-prefixed hex (or empty); otherwise -32602 "Invalid data params".
 */
import { bytesToHex } from '../../crypto/bytes.ts';
import { keccak256 } from '../../crypto/keccak.ts';
import { rpcError } from '../errors.ts';
import { qty } from '../formatters/hex.ts';
import type { NodeApi } from '../node-api.ts';
import { paramLength } from '../params.ts';
import type { RpcMethodSpec } from '../registry.ts';

export interface NetServices {
  jsonrpc?: { host: string; port: number };
  ws?: { host: string; port: number };
  p2p?: { host: string; port: number };
  metrics?: { host: string; port: number };
  graphQL?: { host: string; port: number };
}

export function netMethods(api: NodeApi, services: () => NetServices = () => ({})): RpcMethodSpec[] {
  return [
    { name: 'net_version', group: 'NET', handler: () => api.networkId.toString(10) },
    { name: 'net_listening', group: 'NET', handler: () => api.p2pEnabled },
    { name: 'net_peerCount', group: 'NET', handler: () => qty(api.peers().length) },
    { name: 'net_enode', group: 'NET', handler: () => (api.p2pEnabled ? api.enode() : p2pDisabled()) },
    {
      name: 'net_services',
      group: 'NET',
      handler: () => {
        const s = services();
        const out: Record<string, { host: string; port: string }> = {};
        for (const key of ['jsonrpc', 'ws', 'p2p', 'metrics', 'graphQL'] as const) {
          const v = s[key];
          if (v) out[key] = { host: v.host, port: String(v.port) };
        }
        return out;
      },
    },
  ];
}

export function web3Methods(api: NodeApi): RpcMethodSpec[] {
  return [
    { name: 'web3_clientVersion', group: 'WEB3', handler: () => api.clientVersion },
    {
      name: 'web3_sha3',
      group: 'WEB3',
      handler: (params) => {
        if (paramLength(params) !== 1) throw rpcError('INVALID_PARAM_COUNT');
        const data = params[0];
        if (typeof data !== 'string') throw rpcError('INVALID_DATA_PARAMS');
        if (data.length > 0 && !data.startsWith('0x')) throw rpcError('INVALID_DATA_PARAMS');
        const hex = data.startsWith('0x') ? data.slice(2) : data;
        // tuweni Bytes.fromHexString is strict: an odd digit count is rejected
        if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length % 2 === 1) throw rpcError('INVALID_DATA_PARAMS');
        const bytes = new Uint8Array(hex.length / 2);
        for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
        return bytesToHex(keccak256(bytes));
      },
    },
  ];
}

function p2pDisabled(): never {
  throw rpcError('P2P_DISABLED');
}

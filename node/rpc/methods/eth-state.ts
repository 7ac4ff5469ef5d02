/**
 * eth_ state reads (besu: ethereum/api/.../internal/methods/EthGetBalance.java, EthGetCode.java,
 * EthGetStorageAt.java, EthGetProof.java, results/proof/GetProofResult.java, StorageEntryProof.java).
 *
 * As Besu's AbstractBlockParameterOrBlockHashMethod: the block parameter is read first; a block
 * past the head or an unknown hash answers null before the other parameters are looked at. A block
 * whose state is no longer retained answers null (BlockchainQueries' Optional.empty), except
 * eth_getProof: -32000 "World state unavailable".
 */
import { uint256ToBytes, type Hex } from '../../crypto/bytes.ts';
import { rpcError } from '../errors.ts';
import { data, qty } from '../formatters/hex.ts';
import type { NodeApi } from '../node-api.ts';
import { parseAddress, parseBlockParamOrHash, parseQuantity } from '../params.ts';
import type { RpcMethodSpec } from '../registry.ts';

/** StorageEntryProof.getKey: "0x0" for zero, else the key with leading zero bytes trimmed. */
function proofKey(key: bigint): string {
  if (key === 0n) return '0x0';
  let hex = key.toString(16);
  if (hex.length % 2 === 1) hex = '0' + hex;
  return '0x' + hex;
}

export function ethStateMethods(api: NodeApi): RpcMethodSpec[] {
  return [
    {
      name: 'eth_getBalance',
      group: 'ETH',
      handler: async (params) => {
        const entry = api.resolveBlockOrHash(parseBlockParamOrHash(params[1], 'INVALID_BLOCK_PARAMS'));
        if (!entry) return null;
        const address = parseAddress(params[0], 'INVALID_ADDRESS_PARAMS');
        if (!api.stateAvailable(entry)) return null;
        return qty((await api.account(entry, address))?.balance ?? 0n);
      },
    },
    {
      name: 'eth_getCode',
      group: 'ETH',
      handler: async (params) => {
        const entry = api.resolveBlockOrHash(parseBlockParamOrHash(params[1], 'INVALID_BLOCK_PARAMS'));
        if (!entry) return null;
        const address = parseAddress(params[0], 'INVALID_ADDRESS_PARAMS');
        if (!api.stateAvailable(entry)) return null;
        return data(await api.code(entry, address));
      },
    },
    {
      name: 'eth_getStorageAt',
      group: 'ETH',
      handler: async (params) => {
        const entry = api.resolveBlockOrHash(parseBlockParamOrHash(params[2], 'INVALID_BLOCK_PARAMS'));
        if (!entry) return null;
        const address = parseAddress(params[0], 'INVALID_ADDRESS_PARAMS');
        const position = parseQuantity(params[1], 'INVALID_POSITION_PARAMS');
        if (!api.stateAvailable(entry)) return null;
        return data(await api.storage(entry, address, position));
      },
    },
    {
      name: 'eth_getProof',
      group: 'ETH',
      handler: async (params) => {
        const entry = api.resolveBlockOrHash(parseBlockParamOrHash(params[2], 'INVALID_BLOCK_PARAMS'));
        if (!entry) return null;
        const address = parseAddress(params[0], 'INVALID_ADDRESS_PARAMS');
        if (!Array.isArray(params[1])) throw rpcError('INVALID_STORAGE_KEYS_PARAMS');
        const keys = params[1].map((k) => parseQuantity(k, 'INVALID_STORAGE_KEYS_PARAMS'));
        if (!api.stateAvailable(entry)) throw rpcError('WORLD_STATE_UNAVAILABLE');
        const h = entry.block.header;
        const proof = await api.simulator.proof(h.stateRoot, h.number, h.timestamp, address, keys.map(uint256ToBytes));
        const exists = (await api.account(entry, address)) !== undefined;
        return {
          accountProof: proof.accountProof.map((p) => p.toLowerCase()),
          address: address as Hex,
          balance: proof.balance === '0x' ? '0x0' : proof.balance,
          codeHash: proof.codeHash,
          nonce: proof.nonce === '0x' ? '0x0' : proof.nonce,
          storageHash: proof.storageHash,
          storageProof: exists
            ? proof.storageProof.map((sp, i) => ({
                key: proofKey(keys[i]),
                value: qty(BigInt(sp.value === '0x' || sp.value === '0x0' ? 0 : sp.value)),
                proof: sp.proof.map((p) => p.toLowerCase()),
              }))
            : [],
        };
      },
    },
  ];
}


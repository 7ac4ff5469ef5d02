/**
 * Every method qbft-lab implements, as RpcMethodSpec arrays for the registry.
 * Besu names not listed here answer -32604 "Method not enabled" through the core.
 */
import type { NodeApi } from '../node-api.ts';
import type { RpcMethodSpec } from '../registry.ts';
import { adminMethods, minerMethods } from './admin-miner.ts';
import { debugMethods } from './debug.ts';
import { debugRawMethods } from './debug-raw.ts';
import { ethBlockMethods } from './eth-blocks.ts';
import { ethExecMethods } from './eth-exec.ts';
import { ethSimulateMethods } from './eth-simulate.ts';
import { ethFeeMethods } from './eth-fees.ts';
import { ethLogMethods } from './eth-logs.ts';
import { ethMiscMethods } from './eth-misc.ts';
import { ethConfigMethods } from './eth-config.ts';
import { ethStateMethods } from './eth-state.ts';
import { ethTransactionMethods } from './eth-transactions.ts';
import { netMethods, web3Methods, type NetServices } from './net-web3.ts';
import { permMethods } from './perm.ts';
import { qbftMethods } from './qbft.ts';
import { privMethods } from './priv.ts';
import { rpcModulesMethods } from './rpc-modules.ts';
import { traceMethods } from './trace.ts';
import { txpoolMethods } from './txpool.ts';

export interface MethodsOptions {
  /** What net_services reports (the transports that are running). */
  services?: () => NetServices;
}

export function ethMethods(api: NodeApi): RpcMethodSpec[] {
  return [
    ...ethBlockMethods(api),
    ...ethTransactionMethods(api),
    ...ethStateMethods(api),
    ...ethExecMethods(api),
    ...ethSimulateMethods(api),
    ...ethFeeMethods(api),
    ...ethLogMethods(api),
    ...ethMiscMethods(api),
    ...ethConfigMethods(api),
  ];
}

/** All implemented methods of every group. */
export function allMethods(api: NodeApi, opts: MethodsOptions = {}): RpcMethodSpec[] {
  return [
    ...ethMethods(api),
    ...netMethods(api, opts.services),
    ...web3Methods(api),
    // A chain without a BFT section has no validators or votes: its qbft_ names stay unregistered
    // and answer -32604 "Method not enabled", as every known-but-unbuilt Besu method does.
    ...(api.node.bft ? qbftMethods(api) : []),
    ...txpoolMethods(api),
    ...adminMethods(api),
    ...minerMethods(api),
    ...debugMethods(api),
    ...debugRawMethods(api),
    ...traceMethods(api),
    ...privMethods(api),
    ...permMethods(() => api.node.config.permissioning),
    ...rpcModulesMethods(),
  ];
}

export { adminMethods, debugMethods, minerMethods, netMethods, qbftMethods, txpoolMethods, web3Methods };

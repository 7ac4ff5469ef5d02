/**
 * rpc_modules: the API groups enabled on the transport that answers, lower-cased, each with
 * version "1.0" (Besu's RpcModules). Registered in no group: enabled whenever any group is.
 */
import type { RpcMethodSpec } from '../registry.ts';

export function rpcModulesMethods(): RpcMethodSpec[] {
  return [
    {
      name: 'rpc_modules',
      group: 'WEB3',
      alwaysEnabled: true,
      handler: (_params, _ctx, enabledApis) => Object.fromEntries([...(enabledApis ?? [])].map((api) => [api.toLowerCase(), '1.0'])),
    },
  ];
}

/** The eth protocol side of a node (BlockSync): its view of the chain, its fork id, where blocks go. */
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import { plainBlockHash } from '../chain/block-hashing.ts';
import type { Chain } from '../chain/chain.ts';
import type { Genesis } from '../chain/genesis.ts';
import { BlockSync } from '../p2p/block-sync.ts';
import { acceptsRemoteForkId, forkIdAtHead, forkScheduleOf } from '../p2p/fork-id.ts';
import type { Runtime } from '../runtime/ports.ts';
import type { ImportOutcome } from '../view/node-view.ts';

export interface SyncPorts {
  genesis: Genesis;
  common: Common;
  bft: boolean;
  chain: Chain;
  /** Blocks that arrive over the eth protocol. */
  importBlock(block: Block): Promise<ImportOutcome>;
  onSyncing(syncing: boolean): void;
}

export function createBlockSync(runtime: Runtime, ports: SyncPorts): BlockSync {
  const { chain, genesis } = ports;
  const forks = forkScheduleOf(chain.genesis.hash, genesis);
  const forkPosition = (hash: Hex) => {
    const header = (chain.get(hash) ?? chain.head()).block.header;
    return { number: header.number, timestamp: header.timestamp };
  };
  return new BlockSync({
    transport: runtime.transport,
    timers: runtime.timers,
    log: runtime.log,
    chain: {
      networkId: genesis.chainId,
      genesisHash: chain.genesis.hash,
      head: () => {
        const h = chain.head();
        return { number: h.number, hash: h.hash, td: h.td };
      },
      hasBlock: (hash) => chain.has(hash),
      canonicalHashAt: (n) => chain.canonicalAt(n)?.hash,
      blockByHash: (hash) => chain.get(hash)?.block,
    },
    sink: { importBlock: ports.importBlock },
    common: ports.common,
    hashOf: ports.bft ? undefined : (header) => bytesToHex(plainBlockHash(header)),
    forkId: (head) => forkIdAtHead(forks, forkPosition(head.hash)),
    acceptsForkId: (remote, head) => acceptsRemoteForkId(forks, remote, forkPosition(head.hash)),
    onSyncing: ports.onSyncing,
  });
}

/** The QBFT consensus service of a node, given the node's config and the ports it needs. */
import type { Hex } from '../crypto/bytes.ts';
import type { BesuHooks } from '../bugs/hooks.ts';
import { QbftService } from '../consensus/qbft-service.ts';
import type { NodeProposedBlock } from '../consensus/proposed-block.ts';
import type { PeerId, Runtime } from '../runtime/ports.ts';
import type { BlockRequest, NodeConfig } from '../view/node-config.ts';

const MAX_ROUND = 1_000;

export interface ConsensusPorts {
  address: Hex;
  /** The node's behaviour at Besu's bug hook points. */
  hooks: BesuHooks;
  validateBlock(rlp: Uint8Array, height: number): Promise<NodeProposedBlock | undefined>;
  /** The node's own block creator (NodeConfig.blockCreator may wrap it). */
  createBlock(req: BlockRequest): Promise<NodeProposedBlock>;
  commitBlock(block: NodeProposedBlock, round: number, seals: Uint8Array[]): Promise<void>;
  headNumber(): number;
  onPeerAhead(peer: PeerId, number: number): void;
  multicast(code: number, data: Uint8Array, except: PeerId[], validators: readonly Hex[]): void;
}

export function createQbftService(cfg: NodeConfig, runtime: Runtime, ports: ConsensusPorts): QbftService {
  const { genesis } = cfg;
  return new QbftService({
    cfg: {
      privateKey: cfg.privateKey,
      address: ports.address,
      earlyRoundChange: cfg.earlyRoundChange ?? false,
      layout: cfg.layout ?? 'besu26',
      maxRound: MAX_ROUND,
      hooks: ports.hooks,
      signer: cfg.signer,
    },
    clock: runtime.clock,
    timers: runtime.timers,
    log: runtime.log,
    limits: {
      duplicateMessageLimit: genesis.qbft.duplicateMessageLimit,
      futureMessagesLimit: genesis.qbft.futureMessagesLimit,
      futureMessagesMaxDistance: genesis.qbft.futureMessagesMaxDistance,
      gossipedHistoryLimit: genesis.qbft.gossipedHistoryLimit,
      messageQueueLimit: genesis.qbft.messageQueueLimit,
    },
    gossip: cfg.gossip ?? true,
    validateBlock: ports.validateBlock,
    createBlock: (req) => (cfg.blockCreator ? cfg.blockCreator(req, (r) => ports.createBlock(r)) : ports.createBlock(req)),
    commitBlock: ports.commitBlock,
    headNumber: ports.headNumber,
    onPeerAhead: ports.onPeerAhead,
    multicast: ports.multicast,
    peerOf: (address) => runtime.transport.peerForAddress?.(address),
  });
}

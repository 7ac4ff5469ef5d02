/**
 * The node's side of the transport: incoming messages to consensus, privacy or sync by protocol,
 * peer (dis)connections to privacy and sync, and consensus multicasts out to validator peers.
 */
import type { Hex } from '../crypto/bytes.ts';
import type { NodePrivacy } from '../privacy/node-privacy.ts';
import type { QbftService } from '../consensus/qbft-service.ts';
import type { BlockSync } from '../p2p/block-sync.ts';
import type { PeerId, Runtime, WireMessage } from '../runtime/ports.ts';

/** A height's validator list as a set, made once per list (a list is fixed for its height). */
const validatorSets = new WeakMap<readonly Hex[], ReadonlySet<string>>();

function validatorSet(validators: readonly Hex[]): ReadonlySet<string> {
  let set = validatorSets.get(validators);
  if (set === undefined) validatorSets.set(validators, (set = new Set(validators)));
  return set;
}

export class WireRouter {
  private stopped = false;
  qbft!: QbftService;

  constructor(
    private readonly runtime: Runtime,
    private readonly bft: boolean,
    private readonly sync: BlockSync,
    private readonly privacy: NodePrivacy | undefined,
  ) {}

  /** Takes the transport's messages and peer events from now on. */
  attach(): void {
    this.runtime.transport.setHandlers({
      onMessage: (from, message) => this.onWireMessage(from, message),
      onPeerConnected: (peer) => {
        this.privacy?.onPeerConnected(peer);
        return this.sync.onPeerConnected(peer);
      },
      onPeerDisconnected: (peer) => {
        this.privacy?.onPeerDisconnected(peer);
        return this.sync.onPeerDisconnected(peer);
      },
    });
  }

  /** Messages that arrive after this are dropped. */
  stop(): void {
    this.stopped = true;
  }

  private onWireMessage(from: PeerId, message: WireMessage): Promise<void> | void {
    if (this.stopped) return;
    if (message.protocol === 'istanbul') return this.bft ? this.qbft.onMessage(from, message.code, message.data) : undefined;
    if (message.protocol === 'ptm') return this.privacy?.onWireMessage(from, message.code, message.data);
    return this.sync.onMessage(from, message);
  }

  /** To connected validator peers only; a transport that knows no identities gets every peer. */
  multicastToValidators(message: WireMessage, except: PeerId[], validators: readonly Hex[]): void {
    const { transport } = this.runtime;
    if (!transport.addressOfPeer) return this.multicast(message, except);
    const isValidator = validatorSet(validators);
    for (const peer of transport.peers()) {
      if (except.includes(peer)) continue;
      const address = transport.addressOfPeer(peer)?.toLowerCase();
      if (address !== undefined && isValidator.has(address)) transport.send(peer, message);
    }
  }

  private multicast(message: WireMessage, except: PeerId[]): void {
    for (const peer of this.runtime.transport.peers()) if (!except.includes(peer)) this.runtime.transport.send(peer, message);
  }
}

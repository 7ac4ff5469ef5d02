/**
 * Carries a private transaction manager's messages over the node's transport: each node announces
 * its privacy key to every peer it connects to, and a message for a key goes to the peer that
 * announced it. A message for a key with no connected peer waits (at most `maxPendingPerKey`
 * per key, `maxPendingKeys` keys) until that peer connects. Only the peer that announced a key
 * speaks for it: the manager is told which key a message came from.
 */
import type { PeerId, Transport } from '../runtime/ports.ts';
import type { PrivateTransactionManager, PtmMessage, PtmNetwork } from './private-tx-manager.ts';
import { decodePtmMessage, encodePtmMessage, type PtmWireMessage } from './ptm-wire.ts';

export class PtmPeers implements PtmNetwork {
  private readonly keyOfPeer = new Map<PeerId, string>();
  private readonly peerOfKey = new Map<string, PeerId>();
  private readonly pending = new Map<string, PtmMessage[]>();
  private manager?: PrivateTransactionManager;

  constructor(
    private readonly transport: Transport,
    private readonly ownKey: string,
    private readonly limits = { maxPendingPerKey: 1024, maxPendingKeys: 256 },
  ) {}

  attach(manager: PrivateTransactionManager): void {
    this.manager = manager;
  }

  send(toKey: string, message: PtmMessage): void {
    const peer = this.peerOfKey.get(toKey);
    if (peer !== undefined) {
      this.transmit(peer, message);
      return;
    }
    let queue = this.pending.get(toKey);
    if (!queue) {
      if (this.pending.size >= this.limits.maxPendingKeys) return;
      queue = [];
      this.pending.set(toKey, queue);
    }
    if (queue.length < this.limits.maxPendingPerKey) queue.push(message);
  }

  onPeerConnected(peer: PeerId): void {
    this.transmit(peer, { kind: 'announce', publicKey: this.ownKey });
  }

  onPeerDisconnected(peer: PeerId): void {
    const key = this.keyOfPeer.get(peer);
    if (key === undefined) return;
    this.keyOfPeer.delete(peer);
    if (this.peerOfKey.get(key) === peer) this.peerOfKey.delete(key);
  }

  onMessage(peer: PeerId, code: number, data: Uint8Array): void {
    const message = decodePtmMessage(code, data);
    if (!message) return;
    if (message.kind === 'announce') {
      if (message.publicKey === this.ownKey) return;
      const old = this.keyOfPeer.get(peer);
      if (old !== undefined && this.peerOfKey.get(old) === peer) this.peerOfKey.delete(old);
      this.keyOfPeer.set(peer, message.publicKey);
      this.peerOfKey.set(message.publicKey, peer);
      const queued = this.pending.get(message.publicKey);
      this.pending.delete(message.publicKey);
      for (const m of queued ?? []) this.transmit(peer, m);
      return;
    }
    const from = this.keyOfPeer.get(peer);
    if (from !== undefined) this.manager?.onMessage(from, message);
  }

  /** The privacy key a peer announced. */
  keyOf(peer: PeerId): string | undefined {
    return this.keyOfPeer.get(peer);
  }

  private transmit(peer: PeerId, message: PtmWireMessage): void {
    const { code, data } = encodePtmMessage(message);
    this.transport.send(peer, { protocol: 'ptm', code, data });
  }
}

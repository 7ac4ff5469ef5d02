/**
 * A node's privacy (Besu's `--privacy-enabled` with an embedded private transaction manager):
 * the manager, its peers on the transport, the private states, and privacy marker transactions.
 *
 * A marker is a legacy transaction to Besu's privacy precompile address 0x…7e carrying the
 * payload's key, with the private transaction's gas price and gas limit (Besu's
 * RestrictedOffchainEeaSendRawTransaction). The public chain runs it as a call to an empty
 * account (Besu's precompile costs no gas and changes no public state); members then run the
 * private transaction on their group's private state when the marker's block becomes canonical.
 * Markers are signed with `markerSigningKey` (Besu's --privacy-marker-transaction-signing-key-file)
 * or, without one, with a fresh random key each (Besu's default, which needs a free-gas network).
 */
import type { BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import type { ChainEntry, ReorgEvent } from '../chain/chain.ts';
import { decodingCommon } from '../chain/decoding-common.ts';
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import type { PeerId, Random, Transport } from '../runtime/ports.ts';
import { PrivateStates, type PrivateReceipt, type PrivateWork } from './private-state.ts';
import { decodePrivateTransaction, fromBase64, toBase64, type PrivateTransaction } from './private-transaction.ts';
import { PrivateTransactionManager, type PrivacyGroup, type StoredPayload } from './private-tx-manager.ts';
import { privateKeyToAddress } from '../crypto/secp256k1.ts';
import { PtmPeers } from './ptm-peers.ts';

export const PRIVACY_PRECOMPILE_ADDRESS: Hex = '0x000000000000000000000000000000000000007e';

/** How far back a node whose private states are unknown (after a restart) runs them again. */
const MAX_CATCH_UP_BLOCKS = 4096;

export interface PrivacyConfig {
  /** This node's privacy key: 32 bytes in base64 (Besu's --privacy-public-key-file). */
  publicKey: string;
  /** Signs every privacy marker transaction (else a random key per marker). */
  markerSigningKey?: Uint8Array;
}

export interface PrivateReorg {
  removed: PrivateReceipt[];
  added: PrivateReceipt[];
}

export class NodePrivacy {
  readonly ptm: PrivateTransactionManager;
  readonly peers: PtmPeers;
  readonly states: PrivateStates;
  private readonly listeners: Array<(event: PrivateReorg) => void> = [];
  /** Each stored payload decoded once (the signature recovery is the costly part); null: not a private transaction. */
  private readonly decoded = new WeakMap<StoredPayload, PrivateTransaction | null>();

  constructor(
    readonly config: PrivacyConfig,
    transport: Transport,
    private readonly common: Common,
    private readonly random: Random,
  ) {
    this.peers = new PtmPeers(transport, config.publicKey);
    this.ptm = new PrivateTransactionManager(config.publicKey, this.peers);
    this.peers.attach(this.ptm);
    this.states = new PrivateStates(common);
  }

  onPeerConnected(peer: PeerId): void {
    this.peers.onPeerConnected(peer);
  }

  onPeerDisconnected(peer: PeerId): void {
    this.peers.onPeerDisconnected(peer);
  }

  onWireMessage(peer: PeerId, code: number, data: Uint8Array): void {
    this.peers.onMessage(peer, code, data);
  }

  /** Private receipts of a reorganization (removed blocks' first), for logs and subscriptions. */
  onPrivateReorg(listener: (event: PrivateReorg) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /**
   * Runs the private transactions of the blocks a head change made canonical, in order. A block
   * whose parent's private states are unknown here (after a restart: they live in memory) gets its
   * missing ancestors run first, from the genesis or the last `MAX_CATCH_UP_BLOCKS` blocks.
   */
  async onReorg(reorg: ReorgEvent, genesisHash: Hex, entryOf: (hash: Hex) => ChainEntry | undefined = () => undefined): Promise<void> {
    this.states.markBase(genesisHash);
    const removed: PrivateReceipt[] = [];
    for (const e of reorg.removed) for (const w of this.workOf(e)) {
      const r = this.states.receipt(w.commitmentHash);
      if (r && r.blockHash === e.hash) removed.push(r);
    }
    const added: PrivateReceipt[] = [];
    for (const e of reorg.added) {
      if (!this.states.has(e.parentHash)) await this.catchUp(e, entryOf);
      added.push(...(await this.states.processBlock(e.block.header, e.hash, e.parentHash, this.workOf(e))));
    }
    if (removed.length === 0 && added.length === 0) return;
    for (const l of this.listeners) {
      try {
        l({ removed, added });
      } catch {
        // a listener's failure does not stop the others
      }
    }
  }

  private async catchUp(entry: ChainEntry, entryOf: (hash: Hex) => ChainEntry | undefined): Promise<void> {
    const missing: ChainEntry[] = [];
    let parent = entryOf(entry.parentHash);
    while (parent && !this.states.has(parent.hash) && missing.length < MAX_CATCH_UP_BLOCKS) {
      missing.push(parent);
      parent = entryOf(parent.parentHash);
    }
    const oldest = missing[missing.length - 1];
    if (oldest && !this.states.has(oldest.parentHash)) this.states.markBase(oldest.parentHash);
    if (!oldest && !this.states.has(entry.parentHash)) this.states.markBase(entry.parentHash);
    for (const e of missing.reverse()) await this.states.processBlock(e.block.header, e.hash, e.parentHash, this.workOf(e));
  }

  /** The markers of a block whose payload this node holds, decoded. */
  workOf(entry: ChainEntry): PrivateWork[] {
    const out: PrivateWork[] = [];
    entry.block.transactions.forEach((tx, transactionIndex) => {
      if (tx.to?.toString().toLowerCase() !== PRIVACY_PRECOMPILE_ADDRESS) return;
      const stored = this.ptm.receive(toBase64(tx.data));
      if (!stored) return;
      const priv = this.decode(stored);
      if (!priv) return;
      // Besu's precompile: privateFrom must be the key that sent the payload, a member of a group this node is in.
      if (toBase64(priv.privateFrom) !== stored.senderKey) return;
      const group = this.ptm.group(stored.privacyGroupId);
      if (!group || !group.members.includes(stored.senderKey) || !group.members.includes(this.config.publicKey)) return;
      out.push({ commitmentHash: bytesToHex(tx.hash()), transactionIndex, privacyGroupId: stored.privacyGroupId, tx: priv });
    });
    return out;
  }

  private decode(stored: StoredPayload): PrivateTransaction | null {
    let tx = this.decoded.get(stored);
    if (tx === undefined) {
      try {
        tx = decodePrivateTransaction(stored.payload);
      } catch {
        tx = null;
      }
      this.decoded.set(stored, tx);
    }
    return tx;
  }

  /** The group a private transaction is for, as this node's manager knows it. */
  groupOf(tx: PrivateTransaction): PrivacyGroup | undefined {
    if (tx.privateFor !== undefined) return this.ptm.legacyGroup(toBase64(tx.privateFrom), tx.privateFor.map(toBase64));
    return tx.privacyGroupId && fromBase64(toBase64(tx.privacyGroupId)) ? this.ptm.group(toBase64(tx.privacyGroupId)) : undefined;
  }

  /** A signed privacy marker for the payload `key`, at `nonce` of the signing key's account. */
  markerTransaction(tx: PrivateTransaction, key: string, nonceOf: (address: Hex) => bigint, header: BlockHeader): TypedTransaction {
    const signingKey = this.config.markerSigningKey ?? this.randomKey();
    const common = decodingCommon(this.common, { blockNumber: header.number + 1n, timestamp: header.timestamp + 1n });
    const sender = privateKeyToAddress(signingKey).toLowerCase() as Hex;
    return createLegacyTx({ nonce: nonceOf(sender), gasPrice: tx.gasPrice, gasLimit: tx.gasLimit, to: PRIVACY_PRECOMPILE_ADDRESS, value: 0n, data: fromBase64(key)! }, { common }).sign(signingKey);
  }

  private randomKey(): Uint8Array {
    const key = new Uint8Array(32);
    for (let i = 0; i < 32; i++) key[i] = this.random.int(256);
    key[0] = (key[0]! % 0x7f) + 1; // below the curve order, never zero
    return key;
  }
}

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
 *
 * With a Store, groups, payloads (encrypted) and the private states of each new head persist
 * (privacy-store.ts); `start` puts them back, so a restarted member answers at once for the
 * private transactions it ran before.
 */
import type { BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import type { ChainEntry, ReorgEvent } from '../chain/chain.ts';
import { decodingCommon } from '../chain/decoding-common.ts';
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import type { Log, PeerId, Random, Store, Transport } from '../runtime/ports.ts';
import { PrivateStates, type PrivateReceipt, type PrivateWork } from './private-state.ts';
import { decodePrivateTransaction, fromBase64, toBase64, type PrivateTransaction } from './private-transaction.ts';
import { PrivateTransactionManager, type PrivacyGroup, type StoredPayload } from './private-tx-manager.ts';
import { privateKeyToAddress } from '../crypto/secp256k1.ts';
import { PtmPeers } from './ptm-peers.ts';
import { PrivacyStore, type BlockReceipts } from './privacy-store.ts';
import type { RandomBytes } from './ptm-crypto.ts';

export const PRIVACY_PRECOMPILE_ADDRESS: Hex = '0x000000000000000000000000000000000000007e';

/** How far back a node whose private states are unknown (a block whose parent it never processed) runs them again. */
const MAX_CATCH_UP_BLOCKS = 4096;

export interface PrivacyConfig {
  /** This node's privacy public key: 32 bytes in base64 (Besu's --privacy-public-key-file). */
  publicKey: string;
  /** Its X25519 private half (Tessera's key file): proves the key to peers and opens payloads. */
  privateKey: Uint8Array;
  /** Signs every privacy marker transaction (else a random key per marker). */
  markerSigningKey?: Uint8Array;
  /** Planted defect, for the tests that show the key proof matters: peers' claimed keys are taken unproven. */
  plantSkipKeyProof?: boolean;
}

export interface PrivacyPorts {
  transport: Transport;
  common: Common;
  random: Random;
  /** Where groups, payloads and private states persist (absent: memory only). */
  store?: Store;
  log?: Log;
}

/** What `start` needs of the chain. */
export interface PrivacyChainView {
  genesisHash: Hex;
  head(): ChainEntry;
  canonicalAt(n: number): ChainEntry | undefined;
}

export interface PrivateReorg {
  removed: PrivateReceipt[];
  added: PrivateReceipt[];
}

export class NodePrivacy {
  readonly ptm: PrivateTransactionManager;
  readonly peers: PtmPeers;
  readonly states: PrivateStates;
  readonly persistence?: PrivacyStore;
  private readonly common: Common;
  private readonly random: Random;
  private readonly listeners: Array<(event: PrivateReorg) => void> = [];
  /** Each stored payload decoded once (the signature recovery is the costly part); null: not a private transaction. */
  private readonly decoded = new WeakMap<StoredPayload, PrivateTransaction | null>();

  constructor(
    readonly config: PrivacyConfig,
    ports: PrivacyPorts,
  ) {
    const { transport, log } = ports;
    this.common = ports.common;
    this.random = ports.random;
    const entropy = runtimeBytes(ports.random);
    const keys = { publicKey: config.publicKey, privateKey: config.privateKey };
    this.peers = new PtmPeers(transport, keys, entropy, {
      skipKeyProof: config.plantSkipKeyProof === true,
      onRefused: (peer, reason) => log?.log('warn', 'privacy: refused from peer', { peer: peer.slice(0, 16), reason }),
    });
    if (ports.store) this.persistence = new PrivacyStore(ports.store, (message, fields) => log?.log('warn', message, fields));
    this.ptm = new PrivateTransactionManager(keys, this.peers, { entropy, journal: this.persistence });
    this.peers.attach(this.ptm);
    this.states = new PrivateStates(ports.common);
  }

  /**
   * Puts back what the store holds (groups, payloads, the private states of the last persisted
   * head) and runs the private transactions of the stored canonical blocks after it, so a restarted
   * member answers at once for what it ran before. Without a usable marker: from the genesis.
   */
  async start(chain: PrivacyChainView): Promise<void> {
    this.states.markBase(chain.genesisHash);
    const store = this.persistence;
    if (!store) return;
    for (const { group, pinned } of await store.loadGroups()) this.ptm.restoreGroup(group, pinned);
    for (const p of await store.loadPayloads()) this.ptm.restorePayload(p.key, p.senderKey, p.privacyGroupId, p.envelope, p.pinned);
    this.states.loadNodes(await store.loadTrieNodes());
    const from = await this.resumePoint(chain);
    const added: ChainEntry[] = [];
    for (let n = from + 1; n <= chain.head().number; n++) {
      const entry = chain.canonicalAt(n)!;
      await this.states.processBlock(entry.block.header, entry.hash, entry.parentHash, this.workOf(entry));
      added.push(entry);
    }
    await this.persist(chain.head(), added, []);
  }

  /** The number of the stored block the private states resume after (0: the genesis). */
  private async resumePoint(chain: PrivacyChainView): Promise<number> {
    const store = this.persistence!;
    const head = await store.loadHead();
    const entry = head && chain.canonicalAt(head.number);
    if (!head || !entry || entry.hash !== head.hash || !this.states.whole(head.roots.values())) return 0;
    this.states.restoreAt(head.hash, head.roots, (await store.receiptsOf(head.hash, decodePrivateTransaction)) ?? []);
    store.resumeFrom(head.roots);
    return head.number;
  }

  /** The private receipt of the marker `commitmentHash` in the canonical block `entry` (from memory, else the store). */
  async receiptAt(entry: ChainEntry, commitmentHash: Hex): Promise<PrivateReceipt | undefined> {
    const r = this.states.receipt(commitmentHash);
    if (r && r.blockHash === entry.hash) return r;
    const stored = (await this.persistence?.receiptsOf(entry.hash, decodePrivateTransaction)) ?? [];
    return stored.find((x) => x.commitmentHash === commitmentHash.toLowerCase());
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
   * Runs the private transactions of the blocks a head change made canonical, in order, and
   * persists the new head's private states. A block whose parent's private states are unknown here
   * (never processed, or evicted) gets its missing ancestors run first, from the genesis or the
   * last `MAX_CATCH_UP_BLOCKS` blocks.
   */
  async onReorg(reorg: ReorgEvent, genesisHash: Hex, entryOf: (hash: Hex) => ChainEntry | undefined = () => undefined): Promise<void> {
    this.states.markBase(genesisHash);
    const removed: PrivateReceipt[] = [];
    for (const e of reorg.removed) for (const w of this.workOf(e)) {
      const r = this.states.receipt(w.commitmentHash);
      if (r && r.blockHash === e.hash) removed.push(r);
    }
    const added: PrivateReceipt[] = [];
    const ran: ChainEntry[] = [];
    for (const e of reorg.added) {
      if (!this.states.has(e.parentHash)) ran.push(...(await this.catchUp(e, entryOf)));
      added.push(...(await this.states.processBlock(e.block.header, e.hash, e.parentHash, this.workOf(e))));
      ran.push(e);
    }
    const head = reorg.added.at(-1);
    if (head) await this.persist(head, ran, reorg.removed);
    if (removed.length === 0 && added.length === 0) return;
    for (const l of this.listeners) {
      try {
        l({ removed, added });
      } catch {
        // a listener's failure does not stop the others
      }
    }
  }

  /** The private states at `head` and the receipts of the blocks that became canonical, in one write. */
  private async persist(head: ChainEntry, added: readonly ChainEntry[], removed: readonly ChainEntry[]): Promise<void> {
    const roots = this.states.rootsAt(head.hash);
    if (!this.persistence || !roots) return;
    const blocks: BlockReceipts[] = added.map((e) => ({ hash: e.hash, receipts: this.states.receiptsAt(e.hash) ?? [] }));
    await this.persistence.flush({ number: head.number, hash: head.hash }, roots, (root, base) => this.states.nodesNewSince(root, base), blocks, removed.map((e) => e.hash));
  }

  /** Runs the missing ancestors of `entry`; returns them, oldest first. */
  private async catchUp(entry: ChainEntry, entryOf: (hash: Hex) => ChainEntry | undefined): Promise<ChainEntry[]> {
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
    return missing;
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
    const key = runtimeBytes(this.random)(32);
    key[0] = (key[0]! % 0x7f) + 1; // below the curve order, never zero
    return key;
  }
}

/** Bytes from the runtime's randomness (OS randomness live, the seeded source in the simulator). */
export function runtimeBytes(random: Random): RandomBytes {
  const bytes = (random as { bytes?: (n: number) => Uint8Array }).bytes;
  if (typeof bytes === 'function') return (n) => bytes.call(random, n);
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = random.int(256);
    return out;
  };
}

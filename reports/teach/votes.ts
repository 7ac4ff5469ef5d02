/**
 * Lesson "votes" (scenarios add-validator and epoch-reset): validators vote in the headers of the
 * blocks they propose, one vote per proposer counts, a change needs more than half of the
 * validators (floor(n/2) + 1), the new set changes the quorum and the proposer rotation, and an
 * epoch block drops every outstanding vote.
 */
import { quorumSize } from '../../node/consensus/qbft/quorum.ts';
import type { TraceLine } from '../../sim/trace.ts';
import type { BlockFact } from './chain-facts.ts';
import { listNames, proposerWhy, quorumText, s } from './explain.ts';
import type { Lesson, LessonRun, Slide } from './lesson.ts';

const thresholdText = (n: number) => `floor(${n} / 2) + 1 = ${Math.floor(n / 2) + 1}`;

function commitMs(run: LessonRun, height: number): number | null {
  return run.timeline.heights.find((h) => h.height === height)?.firstCommitMs ?? null;
}

/** Votes queued and discarded, from the trace: RPC calls and scenario vote steps. */
function queueEvents(run: LessonRun): Array<{ atMs: number; text: string }> {
  const origin = run.timeline.run.originMs;
  const out: Array<{ atMs: number; text: string }> = [];
  const byText = new Map<string, { atMs: number; nodes: string[]; what: string }>();
  const add = (atMs: number, node: string, what: string) => {
    const key = `${atMs}|${what}`;
    const e = byText.get(key) ?? { atMs, nodes: [], what };
    e.nodes.push(node);
    byText.set(key, e);
  };
  for (const l of run.trace.lines as TraceLine[]) {
    const t = l.t - origin;
    if (l.kind === 'rpc-call' && l.method === 'qbft_proposeValidatorVote' && Array.isArray(l.params) && l.node) {
      add(t, l.node, `qbft_proposeValidatorVote(${run.chain.nameOf(String(l.params[0]))}, ${l.params[1] === true ? 'true: add' : 'false: drop'})`);
    } else if (l.kind === 'rpc-call' && l.method === 'qbft_discardValidatorVote' && Array.isArray(l.params) && l.node) {
      add(t, l.node, `qbft_discardValidatorVote(${run.chain.nameOf(String(l.params[0]))})`);
    } else if (l.kind === 'vote-queued' && Array.isArray(l.nodes)) {
      for (const n of l.nodes as string[]) add(t, n, `vote to ${l.add ? 'add' : 'drop'} ${String(l.subject)} queued`);
    } else if (l.kind === 'vote-discarded' && Array.isArray(l.nodes)) {
      for (const n of l.nodes as string[]) add(t, n, `queued vote about ${String(l.subject)} discarded`);
    }
  }
  for (const e of byText.values()) out.push({ atMs: e.atMs, text: `${s(e.atMs)}  ${listNames(e.nodes)}: ${e.what}` });
  return out.sort((a, b) => a.atMs - b.atMs);
}

function pendingText(b: BlockFact, subject: string): string {
  const p = b.pendingAfter.find((x) => x.subject === subject);
  if (!p || (p.add.length === 0 && p.drop.length === 0)) return `no outstanding votes about ${subject}`;
  const parts = [];
  if (p.add.length) parts.push(`add ${subject}: ${listNames(p.add)} (${p.add.length} of ${b.voteThreshold})`);
  if (p.drop.length) parts.push(`drop ${subject}: ${listNames(p.drop)} (${p.drop.length} of ${b.voteThreshold})`);
  return `outstanding votes: ${parts.join('; ')}`;
}

function blockSlide(run: LessonRun, b: BlockFact, subject: string): Slide {
  const n = b.validators.length;
  const paragraphs: string[] = [];
  const who = `Block ${b.number}, proposed by ${b.proposer} in round ${b.round}`;
  if (b.epoch) {
    paragraphs.push(
      `${who}, is an epoch block (${b.number} mod epochlength ${run.chain.epochLength} = 0). The tally restarts from the validator list in its extraData (${listNames(b.validatorsAfter)}) and drops every outstanding vote${b.vote ? `, including the vote this block carries (${b.proposer}: ${b.vote.add ? 'add' : 'drop'} ${b.vote.subject}), which is ignored` : ''}.`,
    );
  } else if (b.vote) {
    paragraphs.push(`${who}, carries ${b.proposer}'s vote to ${b.vote.add ? 'add' : 'drop'} ${b.vote.subject} in its header. With ${n} validators a change needs ${thresholdText(n)} votes, more than half.`);
  } else {
    paragraphs.push(`${who}, carries no vote.`);
  }
  const changed = b.validatorsAfter.join() !== b.validators.join();
  if (changed) {
    const m = b.validatorsAfter.length;
    const added = b.validatorsAfter.filter((v) => !b.validators.includes(v));
    const dropped = b.validators.filter((v) => !b.validatorsAfter.includes(v));
    paragraphs.push(
      `That makes ${Math.floor(n / 2) + 1} votes, the threshold: ${[...added.map((v) => `${v} is added`), ...dropped.map((v) => `${v} is dropped`)].join(', ')}. From block ${b.number + 1} the validators are ${b.validatorsAfter.join(' ')} (address order, n = ${m}): ${quorumText(m)} (was ${quorumSize(n)}), a vote needs ${thresholdText(m)}, and the proposer rotation includes ${listNames(added.length ? added : b.validatorsAfter)}.`,
    );
  } else {
    paragraphs.push(`After it, ${pendingText(b, subject)}; the validators stay ${b.validatorsAfter.join(' ')}.`);
  }
  return { title: `Block ${b.number}${b.epoch ? ' (epoch block)' : b.vote ? `: ${b.proposer} votes to ${b.vote.add ? 'add' : 'drop'} ${b.vote.subject}` : ''}`, run, atMs: commitMs(run, b.number), paragraphs };
}

function addValidatorSlides(run: LessonRun): Slide[] {
  const c = run.chain;
  const n = c.genesisValidators.length;
  const subjectBlock = c.blocks.find((b) => b.vote);
  const subject = subjectBlock?.vote?.subject ?? '?';
  const queued = queueEvents(run);
  const out: Slide[] = [
    {
      title: `Votes, part 1: ${run.scenario.name}`,
      run,
      atMs: queued[0]?.atMs ?? 0,
      paragraphs: [
        run.scenario.description,
        `Validators at genesis: ${c.genesisValidators.join(' ')} (n = ${n}). In block-header selection a proposer writes one of its queued votes into the header of the block it proposes (the extraData vote: a recipient and add or drop). Each validator's latest vote about a subject counts once; when the votes for a change reach floor(n / 2) + 1 (more than half: ${thresholdText(n)} here), the change takes effect for the next block.`,
      ],
      table: queued.map((q) => q.text),
    },
  ];
  const change = c.blocks.find((b) => b.validatorsAfter.join() !== b.validators.join());
  const last = change ? change.number + 1 : Math.min(c.blocks.length, 6);
  for (const b of c.blocks.filter((x) => x.number <= last && (x.vote || x.number === last || x === change))) out.push(blockSlide(run, b, subject));
  if (change) {
    const added = change.validatorsAfter.find((v) => !change.validators.includes(v));
    const firstTurn = added ? c.blocks.find((b) => b.proposer === added) : undefined;
    if (firstTurn) {
      out.push({
        title: `Block ${firstTurn.number}: ${added} proposes`,
        run,
        atMs: commitMs(run, firstTurn.number),
        paragraphs: [
          `${added} proposes block ${firstTurn.number} in round ${firstTurn.round}. ${proposerWhy(run, firstTurn.number, firstTurn.round)}`,
          `The block carries ${firstTurn.seals} commit seals: ${quorumText(firstTurn.validators.length)} of ${listNames(firstTurn.validators)}.`,
        ],
      });
    }
  }
  return out;
}

function epochSlides(run: LessonRun): Slide[] {
  const c = run.chain;
  const n = c.genesisValidators.length;
  const subject = c.blocks.find((b) => b.vote)?.vote?.subject ?? '?';
  const queued = queueEvents(run);
  // The first two epochs that hold votes, up to the epoch block closing the second.
  const epochsWithVotes = [...new Set(c.blocks.filter((b) => b.vote).map((b) => Math.floor((b.number - 1) / c.epochLength)))];
  const until = Math.min(c.blocks.length, ((epochsWithVotes[1] ?? epochsWithVotes[0] ?? 0) + 1) * c.epochLength);
  const laterVotes = c.blocks.filter((b) => b.vote && b.number > until).map((b) => b.number);
  const most = Math.max(0, ...c.blocks.map((b) => b.pendingAfter.find((p) => p.subject === subject)?.add.length ?? 0));
  const out: Slide[] = [
    {
      title: `Votes, part 2: ${run.scenario.name}`,
      run,
      atMs: queued[0]?.atMs ?? 0,
      paragraphs: [
        run.scenario.description,
        `epochlength is ${c.epochLength}: blocks ${[1, 2, 3].map((i) => i * c.epochLength).join(', ')}, ... are epoch blocks. An epoch block resets the tally: outstanding votes are dropped, so votes only add up within one epoch. ${n} validators: a change needs ${thresholdText(n)} votes.`,
      ],
      table: queued.map((q) => q.text),
    },
  ];
  for (const b of c.blocks.filter((x) => x.number <= until && (x.vote || x.epoch))) out.push(blockSlide(run, b, subject));
  const final = c.blocks[c.blocks.length - 1];
  const voters = [...new Set(c.blocks.filter((b) => b.vote?.subject === subject).map((b) => b.proposer))];
  if (final) {
    out.push({
      title: `Votes: what stayed`,
      run,
      atMs: commitMs(run, final.number),
      paragraphs: [
        `${listNames(voters)} all voted for ${subject}, yet at block ${final.number} the validators are still ${final.validatorsAfter.join(' ')}: the tally never held more than ${most} of the ${thresholdText(n)} votes needed at once.`,
        ...(laterVotes.length > 0 ? [`Votes still queued are cast again in later blocks (${listNames(laterVotes.map(String))}), and each epoch block drops them again.`] : []),
      ],
    });
  }
  return out;
}

export const votes: Lesson = {
  name: 'votes',
  title: 'Votes: adding a validator, the threshold, and the epoch reset',
  summary: 'header votes, the floor(n/2)+1 threshold, a new quorum, epoch reset (add-validator, epoch-reset)',
  scenarios: ['add-validator', 'epoch-reset'],
  slides(runs: LessonRun[]): Slide[] {
    return [...addValidatorSlides(runs[0]!), ...epochSlides(runs[1]!)];
  },
};

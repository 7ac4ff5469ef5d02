/**
 * Lock safety: once block B may have been decided at (h, r), i.e. a quorum of distinct validators
 * of height h sent COMMIT for B's digest at (h, r), no honest validator sends PREPARE at (h, r')
 * with r' > r for a block other than B. Blocks are compared by on-chain hash, which leaves out
 * the round and the seals, so B re-proposed in a later round is still B; a digest is mapped to
 * its block through the proposals and round changes seen on the network (a PREPARE whose block
 * was never seen is not judged).
 *
 * Why COMMITs and not PREPAREs: a quorum of PREPAREs sent does not lock anyone (if they are late,
 * nobody is prepared and a later round may rightly build another block). A COMMIT is sent only by
 * a validator that is prepared on B; the honest ones among a commit quorum are more than n - quorum,
 * so every round-change quorum for a later round holds one of their prepared certificates, and the
 * next proposal must carry B. That argument needs at most f validators Byzantine and those honest
 * committers to remember: a lock is not judged when more than f of height h's validators are
 * faulty, or when so many committers restarted since their COMMIT (losing their certificate) that
 * no more than n - quorum remember it.
 */
import type { MessageSent, Observation } from './observation.ts';
import { ModelChecker } from './violation.ts';
import { maxFaulty, quorum } from './toolkit/bft-math.ts';
import type { Hex } from './toolkit/crypto.ts';
import { signedParts, type CommitPayload, type PreparePayload } from './toolkit/qbft-messages.ts';
import { describeSigned } from './describe.ts';

interface Lock {
  round: number;
  digest: Hex;
  identity: Hex;
  /** Committer -> virtual ms its COMMIT was first seen. */
  committers: Map<Hex, number>;
  atMs: number;
}

interface HonestPrepare {
  round: number;
  digest: Hex;
  signer: Hex;
  atMs: number;
  from: string;
  what: string;
}

export class LockSafetyChecker extends ModelChecker {
  readonly name = 'lock-safety' as const;
  /** `${h}|${r}|${digest}` -> committer -> first seen (ms). */
  private readonly commits = new Map<string, Map<Hex, number>>();
  private readonly locks = new Map<number, Lock[]>();
  private readonly prepares = new Map<number, HonestPrepare[]>();
  private readonly seenPrepares = new Set<string>();


  /** Commit quorums seen so far (each a lock that later prepares are judged against). */
  get lockCount(): number {
    let n = 0;
    for (const list of this.locks.values()) n += list.length;
    return n;
  }

  observe(o: Observation): void {
    if (this.stopped || o.type !== 'message' || 'error' in o.decoded) return;
    for (const part of signedParts(o.decoded)) {
      const p = part.payload;
      if (!part.signer) continue;
      if (p.kind === 'commit') this.onCommit(p, part.signer, o);
      else if (p.kind === 'prepare') this.onPrepare(p, part.signer, describeSigned(part, this.model), o);
      if (this.stopped) return;
    }
  }

  private onCommit(payload: CommitPayload, signer: Hex, o: MessageSent): void {
    const { height, round, digest } = payload;
    const key = `${height}|${round}|${digest}`;
    let committers = this.commits.get(key);
    if (!committers) this.commits.set(key, (committers = new Map()));
    if (committers.has(signer)) return;
    committers.set(signer, o.atMs);
    const locks = this.locks.get(height) ?? [];
    if (locks.some((l) => l.round === round && l.digest === digest)) return;
    const validators = this.model.validatorsForHeight(height);
    if (!validators) return;
    const members = [...committers.keys()].filter((c) => validators.includes(c)).length;
    if (members < quorum(validators.length)) return;
    const identity = this.model.identityOfDigest(digest);
    if (!identity) return;
    const lock: Lock = { round, digest, identity, committers, atMs: o.atMs };
    locks.push(lock);
    this.locks.set(height, locks);
    for (const p of this.prepares.get(height) ?? []) if (p.round > round) this.judge(height, lock, p, o.atMs);
  }

  private onPrepare(payload: PreparePayload, signer: Hex, what: string, o: MessageSent): void {
    if (!this.model.honestSigner(signer)) return;
    const { height, round, digest } = payload;
    const key = `${signer}|${height}|${round}|${digest}`;
    if (this.seenPrepares.has(key)) return;
    this.seenPrepares.add(key);
    const p: HonestPrepare = { round, digest, signer, atMs: o.atMs, from: o.from, what };
    let list = this.prepares.get(height);
    if (!list) this.prepares.set(height, (list = []));
    list.push(p);
    for (const lock of this.locks.get(height) ?? []) if (round > lock.round) this.judge(height, lock, p, o.atMs);
  }

  private judge(height: number, lock: Lock, p: HonestPrepare, nowMs: number): void {
    if (this.stopped) return;
    const identity = this.model.identityOfDigest(p.digest);
    if (!identity || identity === lock.identity) return;
    const validators = this.model.validatorsForHeight(height);
    if (!validators) return;
    if (this.model.faultyKeys(validators) > maxFaulty(validators.length)) return;
    const remembering = [...lock.committers].filter(([c, atMs]) => {
      if (!validators.includes(c) || !this.model.honestSigner(c)) return false;
      return this.model.holdersOf(c).every((n) => n.startedAtMs <= atMs);
    }).length;
    if (remembering <= validators.length - quorum(validators.length)) return;
    const name = this.model.nameOf(p.signer);
    this.report({
      atMs: nowMs,
      node: name,
      height,
      round: p.round,
      reason:
        `${name} sent PREPARE at height ${height} round ${p.round} for block ${identity}, but a quorum of COMMITs ` +
        `for block ${lock.identity} at round ${lock.round} was seen by ${lock.atMs} ms (${remembering} committers still remember it)`,
      line: `${p.what}; sent by ${p.from} at ${p.atMs} ms`,
    });
  }
}

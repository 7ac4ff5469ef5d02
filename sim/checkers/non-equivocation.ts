/**
 * Honest non-equivocation: an honest validator never signs two different messages of one kind
 * (PROPOSAL, PREPARE, COMMIT, ROUND_CHANGE) for one (height, round). Every signed part seen on the
 * network counts, piggy-backed ones included, attributed to its recovered signer, not to whoever
 * relayed it.
 *
 * A restarted node has lost its memory, so its history starts over: each signed part is charged
 * to the incarnation its signer was in when the part was first seen on the network (a node puts
 * what it signs on the network at once, so a relay of an old message is never charged to a new
 * incarnation). A node that reorganizes onto another branch builds the heights above the fork
 * point on other parents; its history for those heights starts over too.
 */
import type { MessageSent, Observation } from './observation.ts';
import { ModelChecker } from './violation.ts';
import { keccak, toHex, type Hex } from './toolkit/crypto.ts';
import { signedParts, type AnySigned } from './toolkit/qbft-messages.ts';
import { KIND_NAMES, describeSigned } from './describe.ts';

interface Signed {
  payloadKey: Hex;
  height: number;
  what: string;
  atMs: number;
  from: string;
}

export class NonEquivocationChecker extends ModelChecker {
  readonly name = 'honest-non-equivocation' as const;
  /** signature -> the signed payload's key, for every signed part seen. */
  private readonly seen = new Map<Hex, Hex>();
  /** Per signer: `${incarnation}|${kind}|${height}|${round}` -> what it signed. */
  private readonly history = new Map<Hex, Map<string, Signed>>();


  observe(o: Observation): void {
    if (this.stopped) return;
    if (o.type === 'message') {
      if ('error' in o.decoded) return;
      for (const part of signedParts(o.decoded)) this.onSigned(part, o);
    } else if (o.type === 'reorg' && this.model.honest(o.node)) {
      const numbers = o.removed.map((h) => this.model.numberOfReported(h)).filter((n): n is number => n !== undefined);
      if (numbers.length === 0) return;
      const forkPoint = Math.min(...numbers);
      const mine = this.history.get(this.model.node(o.node).address);
      if (!mine) return;
      for (const [key, s] of [...mine]) if (s.height > forkPoint) mine.delete(key);
    }
  }

  private onSigned(part: AnySigned, o: MessageSent): void {
    const signer = part.signer;
    if (!signer || !this.model.honestSigner(signer)) return;
    const sig = toHex(part.signature);
    const payloadKey = toHex(keccak(part.payloadRlp));
    if (this.seen.get(sig) === payloadKey) return;
    this.seen.set(sig, payloadKey);
    const holder = this.model.holdersOf(signer)[0];
    if (!holder) return;
    const p = part.payload;
    const key = `${holder.incarnation}|${p.kind}|${p.height}|${p.round}`;
    let mine = this.history.get(signer);
    if (!mine) this.history.set(signer, (mine = new Map()));
    const earlier = mine.get(key);
    const what = describeSigned(part, this.model);
    if (!earlier) {
      mine.set(key, { payloadKey, height: p.height, what, atMs: o.atMs, from: o.from });
      return;
    }
    if (earlier.payloadKey === payloadKey) return;
    this.report({
      atMs: o.atMs,
      node: holder.name,
      height: p.height,
      round: p.round,
      reason: `${holder.name} signed two different ${KIND_NAMES[p.kind]} messages for height ${p.height} round ${p.round}: first ${earlier.what} (seen from ${earlier.from} at ${earlier.atMs} ms), then ${what}`,
      line: `${what}; sent by ${o.from} at ${o.atMs} ms`,
    });
  }
}

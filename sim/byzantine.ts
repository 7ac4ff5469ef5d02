/**
 * Byzantine behaviours, injected between a node and its transport so the node's own code stays
 * honest and unchanged: the node decides what to send, and its Byzantine transport rewrites,
 * withholds, adds to or replays what goes on the wire. Everything it adds is validly signed with
 * the node's own key; other authors' messages are only passed on or replayed. Each behaviour
 * lives in sim/byzantine/ with a comment on what it sends; every one bounds how much it sends per
 * message the node sends, so runs stay fast.
 *
 * The transport plans once per outgoing buffer (a multicast hands the same buffer to every peer),
 * so all peers see the same hostile messages unless a behaviour plans per peer (equivocation).
 * Counts of every hostile act are kept in the control, where tests read them.
 */
import type { Common } from '@ethereumjs/common';
import type { WireLayout } from '../node/consensus/qbft/messages.ts';
import { addressOfKey } from '../node/consensus/qbft/signer-cache.ts';
import type { Transport, WireMessage } from '../node/runtime/ports.ts';
import { breakRules } from './byzantine/break-rules.ts';
import { equivocate, invalidJustification, silent, withholdProposals } from './byzantine/classic.ts';
import { conflictingPrepared } from './byzantine/conflicting-prepared.ts';
import { duplicateAuthors } from './byzantine/duplicate-authors.ts';
import { forgeBlocks } from './byzantine/forged-blocks.ts';
import { forgeCommitSeal } from './byzantine/forged-commit.ts';
import { ignoreLock } from './byzantine/ignore-lock.ts';
import { authorOf, peekRoundId, tryDecode, type Behaviour, type ByzantineKit, type Outgoing, type Plan } from './byzantine/kit.ts';
import { malformedRlp } from './byzantine/malformed-rlp.ts';
import { MessageMemory } from './byzantine/memory.ts';
import { replayOld } from './byzantine/replay.ts';
import { roundChangeFlood } from './byzantine/round-change-flood.ts';
import { wrongHeight } from './byzantine/wrong-height.ts';
import type { QbftMessage } from '../node/consensus/qbft/messages.ts';
import type { ByzantineBehaviour, HostileBehaviour } from './byzantine/names.ts';

export { BYZANTINE_BEHAVIOURS, HOSTILE_BEHAVIOURS, isByzantineBehaviour, type ByzantineBehaviour, type HostileBehaviour } from './byzantine/names.ts';

const IMPLEMENTATIONS: Record<HostileBehaviour, Behaviour> = {
  equivocate,
  silent,
  'invalid-justification': invalidJustification,
  'forge-commit-seal': forgeCommitSeal,
  'conflicting-prepared': conflictingPrepared,
  'ignore-lock': ignoreLock,
  'replay-old': replayOld,
  'duplicate-authors': duplicateAuthors,
  'wrong-height': wrongHeight,
  'malformed-rlp': malformedRlp,
  'round-change-flood': roundChangeFlood,
  'withhold-proposals': withholdProposals,
  'forge-blocks': forgeBlocks,
  'break-rules': breakRules,
};

export interface ByzantineControl {
  /** A built-in behaviour or the name of a custom one (byzantineTransport's `custom`). */
  behaviour: ByzantineBehaviour | (string & {}) | undefined;
  /** Hostile acts by kind ('<behaviour>:<variant>'), summed over the node's restarts. */
  counts?: Record<string, number>;
}

interface PlannedSend {
  behaviour: string;
  plan: Plan;
}

/** Finds a behaviour's implementation: a built-in one, else a custom one by name. */
function implementationOf(name: string, custom: ReadonlyMap<string, Behaviour>): Behaviour {
  const impl = Object.hasOwn(IMPLEMENTATIONS, name) ? (IMPLEMENTATIONS as Record<string, Behaviour>)[name] : custom.get(name);
  if (!impl) throw new Error(`unknown Byzantine behaviour '${name}'`);
  return impl;
}

export function byzantineTransport(
  inner: Transport,
  control: ByzantineControl,
  privateKey: Uint8Array,
  common: Common,
  layout: WireLayout = 'besu26',
  custom: ReadonlyMap<string, Behaviour> = new Map(),
): Transport {
  const own = addressOfKey(privateKey);
  const memory = new MessageMemory();
  const turns = new Map<string, number>();
  const kit: ByzantineKit = {
    own,
    get self() {
      return inner.localId;
    },
    privateKey,
    common,
    layout,
    memory,
    peers: () => inner.peers(),
    act(kind) {
      const counts = (control.counts ??= {});
      counts[kind] = (counts[kind] ?? 0) + 1;
    },
    state: new Map(),
    turn(key, salt = 0) {
      const n = turns.get(key) ?? 0;
      turns.set(key, n + 1);
      return n + salt;
    },
  };
  const planned = new WeakMap<Uint8Array, PlannedSend>();
  const active = (): string | undefined => {
    const b = control.behaviour;
    return b === undefined || b === 'none' ? undefined : b;
  };

  const outgoing = (code: number, data: Uint8Array): Outgoing => {
    let decoded: QbftMessage | undefined | null = null;
    return {
      code,
      data,
      own: authorOf(code, data) === own,
      roundId: peekRoundId(code, data),
      decoded: () => (decoded === null ? (decoded = tryDecode(code, data)) : decoded),
    };
  };

  const plan = (behaviour: string, message: WireMessage): Plan => {
    const impl = implementationOf(behaviour, custom);
    const out = outgoing(message.code, message.data);
    if (out.own && out.roundId) memory.noteOwnHeight(out.roundId.sequence);
    if (out.own && impl.observesOwn !== false && impl.observes?.includes(message.code)) {
      const m = out.decoded();
      if (m) memory.observe(m);
    }
    const result = impl.plan(kit, out);
    if (impl.keepsRecent && out.roundId) memory.remember({ code: out.code, data: out.data, roundId: out.roundId, own: out.own });
    return result;
  };

  /** QBFT messages go through every behaviour; eth messages only through those that plan them. */
  const rewrites = (behaviour: string, message: WireMessage): boolean =>
    message.protocol === 'istanbul' || (message.protocol === 'eth' && implementationOf(behaviour, custom).planEth !== undefined);

  const observeIncoming = (message: WireMessage): void => {
    const behaviour = active();
    if (!behaviour || message.protocol !== 'istanbul') return;
    const impl = implementationOf(behaviour, custom);
    if (impl.keepsRecent) {
      const roundId = peekRoundId(message.code, message.data);
      if (roundId) memory.remember({ code: message.code, data: message.data, roundId, own: false });
    }
    if (impl.observes?.includes(message.code)) {
      const m = tryDecode(message.code, message.data);
      if (!m) return;
      memory.observe(m);
      for (const extra of impl.onIncoming?.(kit, m) ?? []) for (const peer of inner.peers()) inner.send(peer, extra);
    }
  };

  return {
    get localId() {
      return inner.localId;
    },
    peers: () => inner.peers(),
    setHandlers: (h) =>
      inner.setHandlers({
        onMessage: (from, message) => {
          observeIncoming(message);
          return h.onMessage(from, message);
        },
        onPeerConnected: (peer) => h.onPeerConnected(peer),
        onPeerDisconnected: (peer) => h.onPeerDisconnected(peer),
      }),
    peerForAddress: inner.peerForAddress ? (a) => inner.peerForAddress!(a) : undefined,
    addressOfPeer: inner.addressOfPeer ? (p) => inner.addressOfPeer!(p) : undefined,
    send(to, message) {
      const behaviour = active();
      if (!behaviour || !rewrites(behaviour, message)) return inner.send(to, message);
      let entry = planned.get(message.data);
      if (!entry || entry.behaviour !== behaviour) {
        entry = { behaviour, plan: message.protocol === 'eth' ? implementationOf(behaviour, custom).planEth!(kit, message) : plan(behaviour, message) };
        planned.set(message.data, entry);
      }
      const list = typeof entry.plan === 'function' ? entry.plan(to) : entry.plan;
      for (const m of list) inner.send(to, m);
    },
  };
}

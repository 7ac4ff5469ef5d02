/**
 * Each Byzantine behaviour puts the intended hostile message on the wire: a Byzantine transport
 * over a recording transport is fed the messages an honest node would send (signed with the
 * Byzantine key) and what it receives, and what comes out is decoded and checked, where it
 * matters against the node's own validation rules.
 */
import test from 'ava';
import type { Common } from '@ethereumjs/common';
import { bytesToHex, hexToBytes, type Hex } from '../node/crypto/bytes.ts';
import { blockFromRlp, blockToRlp, extraDataOf, withExtraData } from '../node/chain/block-hashing.ts';
import { parseGenesis } from '../node/chain/genesis.ts';
import { sharedCommonFor } from '../node/chain/common.ts';
import { proposedBlockFrom } from '../node/consensus/proposed-block.ts';
import {
  decodeMessage,
  encodeMessage,
  MessageCode,
  signPayload,
  type CommitMessage,
  type PrepareMessage,
  type ProposalMessage,
  type QbftMessage,
  type RoundChangeMessage,
} from '../node/consensus/qbft/messages.ts';
import { recoverAddressCached, signRemembered } from '../node/consensus/qbft/signer-cache.ts';
import { expectedProposer, validateProposal, validateRoundChange, type ValidationContext } from '../node/consensus/qbft/validation.ts';
import { privateKeyToAddress } from '../node/crypto/secp256k1.ts';
import { keccak256 } from '../node/crypto/keccak.ts';
import type { PeerId, Transport, TransportHandlers, WireMessage } from '../node/runtime/ports.ts';
import { byzantineTransport, HOSTILE_BEHAVIOURS, type ByzantineBehaviour, type ByzantineControl } from './byzantine.ts';
import { FORGER_KEY, blockDigest, blockCoinbase, variantBlock } from './byzantine/kit.ts';
import { FORGED_COMMIT_VARIANTS } from './byzantine/forged-commit.ts';
import { MALFORMED_VARIANTS, MALFORMED_PER_SEND } from './byzantine/malformed-rlp.ts';
import { FLOOD_PER_SEND, FLOOD_ROUNDS } from './byzantine/round-change-flood.ts';
import { REPLAYS_PER_SEND } from './byzantine/replay.ts';
import { buildSimGenesis } from './genesis-builder.ts';
import { validatorKeys, type NodeKey } from './keys.ts';
import { SIM_START_TIME_MS, World } from './world.ts';

interface Fixture {
  keys: NodeKey[];
  names: string[];
  common: Common;
  height: number;
  /** A valid block for `height` as proposed in round 0 (no seals). */
  blockRlp: Uint8Array;
  digest: Hex;
  vctx: ValidationContext;
  /** The Byzantine node: the proposer of round 1 at `height`. */
  b: number;
}

let fixture: Promise<Fixture> | undefined;

/** A 4-validator chain run for a few seconds: real blocks, keys and the validation context of height 4. */
function chainFixture(): Promise<Fixture> {
  fixture ??= (async () => {
    const keys = validatorKeys(4);
    const genesis = buildSimGenesis({ validators: keys.map((k) => k.address), startTimeSeconds: SIM_START_TIME_MS / 1000, requestTimeoutSeconds: 1 });
    const names = keys.map((_, i) => `v${i}`);
    const world = new World({ seed: 3, genesis, nodes: keys.map((key, i) => ({ name: names[i], key })) });
    await world.startAll();
    await world.runFor(5_500);
    const node = world.get('v0').node!;
    const height = 4;
    const sealed = node.blockAt(height)!.block;
    const extra = extraDataOf(sealed.header);
    const common = sharedCommonFor(parseGenesis(genesis));
    const block = withExtraData(sealed, { ...extra, round: 0, seals: [] }, node.common);
    const blockRlp = blockToRlp(block);
    for (const n of names) world.crash(n);
    const vctx = {
      height,
      validators: keys.map((k) => k.address).sort(),
      parentCoinbase: node.blockAt(height - 1)!.coinbase,
      maxRound: 1000,
      enforced: () => true,
    } as ValidationContext;
    const proposer1 = expectedProposer(vctx, 1);
    return { keys, names, common, height, blockRlp, digest: blockDigest(blockRlp, common), vctx, b: keys.findIndex((k) => k.address === proposer1) };
  })();
  return fixture;
}

const istanbul = (m: QbftMessage): WireMessage => ({ protocol: 'istanbul', code: codeOf(m), data: encodeMessage(m) });

function codeOf(m: QbftMessage): number {
  return { proposal: MessageCode.PROPOSAL, prepare: MessageCode.PREPARE, commit: MessageCode.COMMIT, roundChange: MessageCode.ROUND_CHANGE }[m.kind];
}

function prepare(key: NodeKey, height: number, round: number, digest: Hex): PrepareMessage {
  return { kind: 'prepare', signed: signPayload({ kind: 'prepare', sequence: height, round, digest: hexToBytes(digest) }, key.privateKey) };
}

function commit(key: NodeKey, height: number, round: number, digest: Hex): CommitMessage {
  const d = hexToBytes(digest);
  return { kind: 'commit', signed: signPayload({ kind: 'commit', sequence: height, round, digest: d, commitSeal: signRemembered(d, key.privateKey) }, key.privateKey) };
}

function roundChange(key: NodeKey, height: number, round: number, prepared?: { round: number; blockRlp: Uint8Array; prepares: PrepareMessage[]; common: Common }): RoundChangeMessage {
  const signed = signPayload(
    { kind: 'roundChange', sequence: height, round, prepared: prepared ? { preparedRound: prepared.round, preparedBlockHash: hexToBytes(blockDigest(prepared.blockRlp, prepared.common)) } : undefined },
    key.privateKey,
  );
  return prepared ? { kind: 'roundChange', signed, preparedBlockRlp: prepared.blockRlp, prepares: prepared.prepares.map((p) => p.signed) } : { kind: 'roundChange', signed, prepares: [] };
}

function proposal(key: NodeKey, height: number, round: number, blockRlp: Uint8Array, rcs: RoundChangeMessage[] = [], prepares: PrepareMessage[] = []): ProposalMessage {
  return { kind: 'proposal', signed: signPayload({ kind: 'proposal', sequence: height, round, blockRlp }, key.privateKey), roundChanges: rcs.map((r) => r.signed), prepares: prepares.map((p) => p.signed) };
}

/** A Byzantine transport for the fixture's node b over a transport that records what it sends. */
function harness(f: Fixture, behaviour: ByzantineBehaviour) {
  const self = f.names[f.b];
  const peers = f.names.filter((n) => n !== self);
  const sent: Array<{ to: PeerId; m: WireMessage }> = [];
  let handlers: TransportHandlers | undefined;
  const inner: Transport = { localId: self, peers: () => peers, send: (to, m) => void sent.push({ to, m }), setHandlers: (h) => void (handlers = h) };
  const control: ByzantineControl = { behaviour };
  const transport = byzantineTransport(inner, control, f.keys[f.b].privateKey, f.common);
  const delivered: WireMessage[] = [];
  transport.setHandlers({ onMessage: (_from, m) => void delivered.push(m), onPeerConnected() {}, onPeerDisconnected() {} });
  return {
    control,
    peers,
    /** The node multicasts `m`; returns what went on the wire to each peer. */
    send(m: QbftMessage | WireMessage): Map<PeerId, WireMessage[]> {
      const wire = 'protocol' in m ? m : istanbul(m);
      const from = sent.length;
      for (const p of peers) transport.send(p, wire);
      const out = new Map<PeerId, WireMessage[]>(peers.map((p) => [p, []]));
      for (const { to, m: w } of sent.slice(from)) out.get(to)!.push(w);
      return out;
    },
    /** `m` arrives from a peer; returns what the transport sent on its own meanwhile. */
    receive(m: QbftMessage): Array<{ to: PeerId; m: WireMessage }> {
      const from = sent.length;
      void handlers!.onMessage(f.names.find((n) => n !== self)!, istanbul(m));
      return sent.slice(from);
    },
    delivered,
  };
}

const decoded = (w: WireMessage) => decodeMessage(w.code, w.data);

/** Runs `act` and names the one kind of hostile act it counted ('<behaviour>:' stripped). */
function actOf(control: ByzantineControl, act: () => void): string {
  const before = { ...control.counts };
  act();
  const grown = Object.keys(control.counts ?? {}).filter((k) => (control.counts![k] ?? 0) > (before[k] ?? 0));
  if (grown.length !== 1) throw new Error(`expected one kind of act, got ${grown.join(', ') || 'none'}`);
  return grown[0].replace(/^[^:]*:/, '');
}
const same = (a: Uint8Array, b: Uint8Array) => bytesToHex(a) === bytesToHex(b);
const others = (f: Fixture) => f.keys.filter((_, i) => i !== f.b);

test('the behaviour list names every implementation, and an honest transport passes messages through untouched', async (t) => {
  const f = await chainFixture();
  t.is(new Set(HOSTILE_BEHAVIOURS).size, HOSTILE_BEHAVIOURS.length);
  for (const behaviour of [undefined, 'none'] as const) {
    const h = harness(f, behaviour as ByzantineBehaviour);
    const m = prepare(f.keys[f.b], f.height, 0, f.digest);
    const out = h.send(m);
    for (const list of out.values()) t.deepEqual(list.map((w) => bytesToHex(w.data)), [bytesToHex(encodeMessage(m))]);
  }
});

test('every behaviour but silent relays other authors\' messages untouched', async (t) => {
  const f = await chainFixture();
  const relayed = commit(others(f)[0], f.height, 0, f.digest);
  for (const behaviour of HOSTILE_BEHAVIOURS) {
    const out = harness(f, behaviour).send(relayed);
    for (const list of out.values()) t.deepEqual(list.map((w) => bytesToHex(w.data)), behaviour === 'silent' ? [] : [bytesToHex(encodeMessage(relayed))], behaviour);
  }
});

test('silent sends nothing; withhold-proposals drops only its own proposals', async (t) => {
  const f = await chainFixture();
  const own = f.keys[f.b];
  const silent = harness(f, 'silent');
  t.true([...silent.send(prepare(own, f.height, 0, f.digest)).values()].every((l) => l.length === 0));
  const withhold = harness(f, 'withhold-proposals');
  t.true([...withhold.send(proposal(own, f.height, 0, f.blockRlp)).values()].every((l) => l.length === 0));
  t.true([...withhold.send(prepare(own, f.height, 0, f.digest)).values()].every((l) => l.length === 1));
  t.is(withhold.control.counts?.['withhold-proposals:dropped'], 1);
});

test('equivocate: two blocks to the two halves, and a vote for each block towards the side that got it', async (t) => {
  const f = await chainFixture();
  const own = f.keys[f.b];
  const h = harness(f, 'equivocate');
  const out = h.send(proposal(own, f.height, 0, f.blockRlp));
  const digests = new Map([...out].map(([peer, list]) => [peer, blockDigest((decoded(list[0]) as ProposalMessage).signed.payload.blockRlp, f.common)]));
  t.is(new Set(digests.values()).size, 2, 'two different blocks');
  for (const [peer, list] of out) {
    const m = decoded(list[0]) as ProposalMessage;
    t.is(m.signed.author, own.address);
    t.is(blockCoinbase(m.signed.payload.blockRlp, f.common), blockCoinbase(f.blockRlp, f.common), `${peer}: an equally valid block`);
  }
  // Its prepare for the genuine block goes to the side that got it, a prepare for the other block to the other side.
  const votes = h.send(prepare(own, f.height, 0, f.digest));
  for (const [peer, list] of votes) {
    const v = decoded(list[0]) as PrepareMessage;
    t.is(v.signed.author, own.address);
    t.is(bytesToHex(v.signed.payload.digest), digests.get(peer)!, `${peer} is asked to prepare the block it was sent`);
  }
  const commits = h.send(commit(own, f.height, 0, f.digest));
  for (const [peer, list] of commits) {
    const c = decoded(list[0]) as CommitMessage;
    t.is(bytesToHex(c.signed.payload.digest), digests.get(peer)!);
    t.is(recoverAddressCached(c.signed.payload.digest, c.signed.payload.commitSeal), own.address, 'a valid seal for that block');
  }
  t.truthy(h.control.counts?.['equivocate:double-prepare']);
});

test('invalid-justification strips the certificate of a round-change proposal to one round change', async (t) => {
  const f = await chainFixture();
  const own = f.keys[f.b];
  const rcs = f.keys.slice(0, 3).map((k) => roundChange(k, f.height, 1));
  const block1 = variant(f, 1, own.address);
  const out = harness(f, 'invalid-justification').send(proposal(own, f.height, 1, block1, rcs));
  const m = decoded([...out.values()][0][0]) as ProposalMessage;
  t.is(m.roundChanges.length, 1);
  t.regex(verdictReason(validateProposal(f.vctx, m, proposedBlockFrom(blockFromRlp(m.signed.payload.blockRlp, f.common)))), /only 1 round changes/);
});

function verdictReason(v: { ok: true } | { ok: false; reason: string }): string {
  return v.ok ? 'ok' : v.reason;
}

/** The fixture's block as proposed in `round`, optionally with another coinbase (vanity kept). */
function variant(f: Fixture, round: number, coinbase?: Hex): Uint8Array {
  return variantBlock(f.blockRlp, f.common, { round, flip: false, coinbase });
}

test('forge-commit-seal sends each kind of bad seal before the genuine commit', async (t) => {
  const f = await chainFixture();
  const own = f.keys[f.b];
  const h = harness(f, 'forge-commit-seal');
  const other = others(f)[0];
  h.receive(commit(other, f.height, 0, f.digest));
  const seen = new Set<string>();
  for (let i = 0; i < FORGED_COMMIT_VARIANTS.length; i++) {
    const genuine = commit(own, f.height, 0, f.digest);
    let out: WireMessage[] = [];
    const variantName = actOf(h.control, () => (out = [...h.send(genuine).values()][0]));
    const [first, second] = out;
    t.true(same(second.data, encodeMessage(genuine)), 'the genuine commit follows');
    seen.add(variantName);
    if (variantName === 'missing-seal') {
      t.throws(() => decoded(first), { message: /commit payload must have 4 items/ });
      continue;
    }
    if (variantName === 'empty-seal') {
      t.throws(() => decoded(first), { message: /commit seal must be 65 bytes/ });
      continue;
    }
    const c = decoded(first) as CommitMessage;
    t.is(c.signed.author, own.address, 'the message itself is validly signed by the Byzantine node');
    const sealSigner = recoverAddressCached(hexToBytes(f.digest), c.signed.payload.commitSeal);
    switch (variantName) {
      default:
        t.fail(`unexpected variant ${variantName}`);
        break;
      case 'wrong-digest':
        t.true(same(c.signed.payload.digest, hexToBytes(f.digest)));
        t.not(sealSigner, own.address);
        t.is(recoverAddressCached(keccak256(hexToBytes(f.digest)), c.signed.payload.commitSeal), own.address, 'its own seal over keccak(digest)');
        break;
      case 'foreign-key':
        t.is(sealSigner, privateKeyToAddress(FORGER_KEY));
        break;
      case 'copied-seal':
        t.is(sealSigner, other.address, "another validator's valid seal for this block");
        break;
      case 'zero-seal':
        t.true(c.signed.payload.commitSeal.every((b) => b === 0));
        break;
      case 'digest-mismatch':
        t.false(same(c.signed.payload.digest, hexToBytes(f.digest)));
        t.is(sealSigner, own.address, 'the right seal under a wrong digest');
        break;
    }
  }
  t.is(seen.size, FORGED_COMMIT_VARIANTS.length);
  for (const v of FORGED_COMMIT_VARIANTS) t.is(h.control.counts?.[`forge-commit-seal:${v}`], 1, v);
});

test('conflicting-prepared: certificates for another block, another hash, another round, or a block never prepared', async (t) => {
  const f = await chainFixture();
  const own = f.keys[f.b];
  const prepares = f.keys.slice(0, 3).map((k) => prepare(k, f.height, 0, f.digest));
  const genuine = () => roundChange(own, f.height, 2, { round: 0, blockRlp: f.blockRlp, prepares, common: f.common });
  const block = proposedBlockFrom(blockFromRlp(f.blockRlp, f.common));
  t.true(validateRoundChange(f.vctx, genuine(), block, false).ok, 'the genuine round change is valid');
  const h = harness(f, 'conflicting-prepared');
  const reasons: Record<string, string> = {};
  for (let i = 0; i < 3; i++) {
    let out: WireMessage[] = [];
    const variantName = actOf(h.control, () => (out = [...h.send(genuine()).values()][0]));
    const [tampered, after] = out;
    t.true(same(after.data, encodeMessage(genuine())));
    const rc = decoded(tampered) as RoundChangeMessage;
    t.is(rc.signed.author, own.address);
    const attached = rc.preparedBlockRlp ? proposedBlockFrom(blockFromRlp(rc.preparedBlockRlp, f.common)) : undefined;
    reasons[variantName] = verdictReason(validateRoundChange(f.vctx, rc, attached, false));
  }
  t.regex(reasons['other-block'], /another block/, 'other-block: prepares for the genuine block under another block');
  t.regex(reasons['hash-mismatch'], /does not match the metadata/);
  t.regex(reasons['wrong-round'], /wrong round/);

  // Not prepared: it claims the proposal it saw, with only its own prepare, or names no block at all.
  const u = harness(f, 'conflicting-prepared');
  u.receive(proposal(f.keys[(f.b + 3) % 4], f.height, 0, f.blockRlp));
  u.send(prepare(own, f.height, 0, f.digest));
  const unprepared = new Map<string, RoundChangeMessage>();
  for (let i = 0; i < 2; i++) {
    let out: WireMessage[] = [];
    const variantName = actOf(u.control, () => (out = [...u.send(roundChange(own, f.height, 1)).values()][0]));
    unprepared.set(variantName, decoded(out[0]) as RoundChangeMessage);
  }
  const claimed = unprepared.get('claim-seen-proposal')!;
  t.true(same(claimed.preparedBlockRlp!, f.blockRlp));
  t.deepEqual(claimed.prepares.map((p) => p.author), [own.address]);
  t.regex(verdictReason(validateRoundChange(f.vctx, claimed, block, false)), /only 1 prepares/);
  const noBlock = unprepared.get('metadata-without-block')!;
  t.truthy(noBlock.signed.payload.prepared);
  t.is(noBlock.preparedBlockRlp, undefined);
  t.regex(verdictReason(validateRoundChange(f.vctx, noBlock, undefined, false)), /without a block/);
});

test('ignore-lock hides its own lock and proposes a fresh block over a quorum of unprepared round changes', async (t) => {
  const f = await chainFixture();
  const own = f.keys[f.b];
  const [a, c, d] = others(f);
  const prepares = [a, c, own].map((k) => prepare(k, f.height, 0, f.digest));
  const cert = (k: NodeKey) => roundChange(k, f.height, 1, { round: 0, blockRlp: f.blockRlp, prepares, common: f.common });
  const h = harness(f, 'ignore-lock');
  // Its own round change goes out without the prepared certificate.
  const [hidden] = [...h.send(cert(own)).values()][0];
  const hiddenRc = decoded(hidden) as RoundChangeMessage;
  t.is(hiddenRc.signed.payload.prepared, undefined);
  t.is(hiddenRc.preparedBlockRlp, undefined);
  h.receive(roundChange(c, f.height, 1));
  h.receive(roundChange(d, f.height, 1));
  // The honest node would re-propose the prepared block (round 1) justified by a's prepared round change.
  const repropose = proposal(own, f.height, 1, variant(f, 1), [cert(a), roundChange(c, f.height, 1), cert(own)], prepares);
  t.true(validateProposal(f.vctx, repropose, proposedBlockFrom(blockFromRlp(repropose.signed.payload.blockRlp, f.common))).ok, 'the honest re-proposal is valid');
  const [sent] = [...h.send(repropose).values()][0];
  const m = decoded(sent) as ProposalMessage;
  const block = proposedBlockFrom(blockFromRlp(m.signed.payload.blockRlp, f.common));
  t.not(block.digestForRound(0), f.digest, 'a block other than the locked one');
  t.is(block.coinbase, own.address);
  t.is(m.prepares.length, 0);
  t.true(m.roundChanges.every((rc) => !rc.payload.prepared));
  t.deepEqual(new Set(m.roundChanges.map((rc) => rc.author)), new Set([own.address, c.address, d.address]));
  t.true(validateProposal(f.vctx, m, block).ok, 'allowed by QBFT: a quorum of unprepared round changes');
  t.is(h.control.counts?.['ignore-lock:dropped-prepared'], 1);

  // Without such a quorum, the genuine certificate goes with another block (invalid) ...
  const s = harness(f, 'ignore-lock');
  s.send(cert(own));
  const [swapped] = [...s.send(repropose).values()][0];
  const sm = decoded(swapped) as ProposalMessage;
  t.is(sm.roundChanges.length, 3);
  t.regex(verdictReason(validateProposal(f.vctx, sm, proposedBlockFrom(blockFromRlp(sm.signed.payload.blockRlp, f.common)))), /not the block of the best prepared certificate/);
  // ... and once a quorum of unprepared round changes is known, the lock-free proposal follows to every peer.
  const later = s.receive(roundChange(d, f.height, 1));
  t.deepEqual(later.map((x) => x.to).sort(), [...s.peers].sort());
  const lm = decoded(later[0].m) as ProposalMessage;
  t.true(validateProposal(f.vctx, lm, proposedBlockFrom(blockFromRlp(lm.signed.payload.blockRlp, f.common))).ok);
  t.is(s.control.counts?.['ignore-lock:dropped-prepared-later'], 1);
});

test('replay-old re-sends earlier messages of lower heights and rounds byte for byte', async (t) => {
  const f = await chainFixture();
  const own = f.keys[f.b];
  const h = harness(f, 'replay-old');
  const old = [prepare(own, f.height - 1, 0, f.digest), commit(own, f.height - 1, 0, f.digest)];
  for (const m of old) h.send(m);
  h.receive(prepare(others(f)[0], f.height - 1, 2, f.digest));
  const current = prepare(own, f.height, 0, f.digest);
  const [first, ...replayed] = [...h.send(current).values()][0];
  t.true(same(first.data, encodeMessage(current)));
  t.is(replayed.length, REPLAYS_PER_SEND);
  const oldBytes = [...old.map((m) => bytesToHex(encodeMessage(m))), bytesToHex(encodeMessage(prepare(others(f)[0], f.height - 1, 2, f.digest)))];
  for (const r of replayed) t.true(oldBytes.includes(bytesToHex(r.data)));
  t.true((h.control.counts?.['replay-old:other-author'] ?? 0) >= 1);
  // Nothing of the current round is replayed.
  const [, ...again] = [...h.send(commit(own, f.height, 0, f.digest)).values()][0];
  t.false(again.some((r) => same(r.data, encodeMessage(current))));
});

test('duplicate-authors pads certificates with a repeated author', async (t) => {
  const f = await chainFixture();
  const own = f.keys[f.b];
  const rcs = f.keys.slice(0, 3).map((k) => roundChange(k, f.height, 1));
  const h = harness(f, 'duplicate-authors');
  const fresh = proposal(own, f.height, 1, variant(f, 1, own.address), rcs);
  t.true(validateProposal(f.vctx, fresh, proposedBlockFrom(blockFromRlp(fresh.signed.payload.blockRlp, f.common))).ok);
  // padded: three entries, two authors; extra: four entries, three authors.
  const modes = new Set<string>();
  for (let i = 0; i < 2; i++) {
    let out: WireMessage[] = [];
    const mode = actOf(h.control, () => (out = [...h.send(proposal(own, f.height, 1, variant(f, 1, own.address), rcs)).values()][0]));
    modes.add(mode);
    const m = decoded(out[0]) as ProposalMessage;
    const [entries, authors] = mode === 'proposal-round-changes-padded' ? [3, 2] : [4, 3];
    t.is(m.roundChanges.length, entries);
    t.is(new Set(m.roundChanges.map((rc) => rc.author)).size, authors);
    t.regex(verdictReason(validateProposal(f.vctx, m, proposedBlockFrom(blockFromRlp(m.signed.payload.blockRlp, f.common)))), /duplicate round change/);
  }
  t.deepEqual([...modes].sort(), ['proposal-round-changes-extra', 'proposal-round-changes-padded']);
  const prepares = f.keys.slice(0, 3).map((k) => prepare(k, f.height, 0, f.digest));
  const rc = decoded([...h.send(roundChange(own, f.height, 1, { round: 0, blockRlp: f.blockRlp, prepares, common: f.common })).values()][0][0]) as RoundChangeMessage;
  t.is(new Set(rc.prepares.map((p) => p.author)).size, rc.prepares.length - 1);
  t.regex(verdictReason(validateRoundChange(f.vctx, rc, proposedBlockFrom(blockFromRlp(f.blockRlp, f.common)), false)), /duplicate prepare/);
});

test('wrong-height adds validly signed copies for heights +1, +5 and -1', async (t) => {
  const f = await chainFixture();
  const own = f.keys[f.b];
  const h = harness(f, 'wrong-height');
  for (const m of [prepare(own, f.height, 0, f.digest), commit(own, f.height, 0, f.digest), roundChange(own, f.height, 1), proposal(own, f.height, 0, f.blockRlp)]) {
    const [genuine, ...copies] = [...h.send(m).values()][0];
    t.true(same(genuine.data, encodeMessage(m)));
    const heights = copies.map((w) => decoded(w)).map((c) => {
      t.is(c.kind, m.kind);
      t.is(c.signed.author, own.address);
      return c.signed.payload.sequence;
    });
    t.deepEqual(heights, [f.height + 1, f.height + 5, f.height - 1]);
  }
});

test('malformed-rlp sends every kind of broken message under QBFT codes, and each fails to decode', async (t) => {
  const f = await chainFixture();
  const own = f.keys[f.b];
  const h = harness(f, 'malformed-rlp');
  let broken = 0;
  const rounds = Math.ceil(MALFORMED_VARIANTS.length / MALFORMED_PER_SEND);
  for (let i = 0; i < rounds; i++) {
    const m = i % 2 === 0 ? commit(own, f.height, i, f.digest) : prepare(own, f.height, i, f.digest);
    const list = [...h.send(m).values()][0];
    t.true(same(list[list.length - 1].data, encodeMessage(m)), 'the genuine message comes last');
    for (const w of list.slice(0, -1)) {
      t.true(Object.values(MessageCode).includes(w.code as never));
      t.throws(() => decoded(w), undefined, `variant ${broken}`);
      broken++;
    }
  }
  t.is(broken, rounds * MALFORMED_PER_SEND);
  for (const v of MALFORMED_VARIANTS) t.true((h.control.counts?.[`malformed-rlp:${v}`] ?? 0) >= 1, v);
});

test('round-change-flood sends, with each own round change, validly signed round changes for more than 1000 distinct rounds above the cap', async (t) => {
  const f = await chainFixture();
  const own = f.keys[f.b];
  const h = harness(f, 'round-change-flood');
  t.deepEqual([...h.send(prepare(own, f.height, 0, f.digest)).values()][0].length, 1, 'a prepare goes alone');
  const rounds: number[] = [];
  const sends = Math.ceil(FLOOD_ROUNDS.length / FLOOD_PER_SEND);
  for (let i = 0; i < sends; i++) {
    const [, ...flood] = [...h.send(roundChange(own, f.height, i + 1)).values()][0];
    t.is(flood.length, FLOOD_PER_SEND);
    for (const w of flood) {
      t.is(w.code, MessageCode.ROUND_CHANGE);
      const rc = decoded(w) as RoundChangeMessage;
      t.is(rc.signed.author, own.address);
      t.is(rc.signed.payload.sequence, f.height);
      rounds.push(rc.signed.payload.round);
    }
  }
  t.deepEqual([...new Set(rounds)].sort((a, b) => a - b), [...FLOOD_ROUNDS]);
  t.true(FLOOD_ROUNDS.length > 1000 && FLOOD_ROUNDS.every((r) => r > 1000));
  t.true(rounds.includes(0x7fffffff));
});

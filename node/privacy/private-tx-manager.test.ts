/**
 * The manager trusts nothing from the wire: hostile group messages, forged legacy groups and
 * payloads from non-members are dropped; floods stay within the byte budget and never push out
 * what this node made; a send needs every member reachable. Payloads travel encrypted: a captured
 * message holds no plaintext, a non-recipient cannot open it (even one whose group check is
 * planted off), and any change to it, or a box with another master key, is refused.
 */
import test from 'ava';
import { randomBytes } from '@noble/ciphers/utils.js';
import { keccak256 } from '../crypto/keccak.ts';
import { PrivateTransactionManager, PtmError, expectedGroupId, type PrivacyGroup, type PtmMessage, type PtmNetwork } from './private-tx-manager.ts';
import { boxKey, boxMasterKey, encryptPayload, keyPairOf, openEnvelope, type PrivacyKeyPair } from './ptm-crypto.ts';
import { encodePtmMessage } from './ptm-wire.ts';
import { fromBase64 } from './private-transaction.ts';

const pairOf = (name: string): PrivacyKeyPair => keyPairOf(keccak256(new TextEncoder().encode(`manager test ${name}`)));
const [PA, PB, PEVIL, PC] = ['a', 'b', 'evil', 'c'].map(pairOf) as [PrivacyKeyPair, PrivacyKeyPair, PrivacyKeyPair, PrivacyKeyPair];
const [A, B, EVIL, C] = [PA, PB, PEVIL, PC].map((p) => p.publicKey) as [string, string, string, string];

class Net implements PtmNetwork {
  sent: Array<[string, PtmMessage]> = [];
  down = new Set<string>();
  send(to: string, m: PtmMessage) {
    this.sent.push([to, m]);
  }
  reachable(k: string) {
    return !this.down.has(k);
  }
}

const manager = (keys: PrivacyKeyPair, net: PtmNetwork = new Net(), limits = {}) => new PrivateTransactionManager(keys, net, { entropy: randomBytes, limits });
type PayloadMessage = Extract<PtmMessage, { kind: 'payload' }>;

/** What `from` pushes to `to` when it sends `payload` to `group`. */
function sentTo(from: PrivacyKeyPair, to: string, payload: Uint8Array, group: PrivacyGroup): PayloadMessage {
  const net = new Net();
  manager(from, net).send(payload, group);
  return net.sent.find(([k]) => k === to)![1] as PayloadMessage;
}

const contains = (haystack: Uint8Array, needle: Uint8Array) => Buffer.from(haystack).includes(Buffer.from(needle));

test('a known group is never changed from the wire; a group whose id does not match its members is dropped', (t) => {
  const net = new Net();
  const a = manager(PA, net);
  const g = a.createGroup([A, B], 'pair', '', new Uint8Array(32).fill(1));
  t.is(expectedGroupId(g) as string, g.privacyGroupId);
  t.regex(a.onMessage(EVIL, { kind: 'group', group: { ...g, members: [A, EVIL] } })!, /refused/);
  t.deepEqual(a.group(g.privacyGroupId)!.members, [A, B], 'the hostile overwrite is ignored');
  net.sent = [];
  a.send(new Uint8Array([1, 2, 3]), a.group(g.privacyGroupId)!);
  t.deepEqual(net.sent.map(([to]) => to), [B], 'the payload still goes to B only');

  const legacy = a.legacyGroup(A, [B]);
  const forged = { ...legacy, members: [EVIL, A] };
  const b = manager(PA);
  b.onMessage(EVIL, { kind: 'group', group: forged });
  t.is(b.group(legacy.privacyGroupId), undefined, "a legacy id that is not its members' is dropped");
  const fakePantheon = { ...g, privacyGroupId: Buffer.alloc(32, 9).toString('base64'), members: [A, EVIL] };
  b.onMessage(EVIL, { kind: 'group', group: fakePantheon });
  t.is(b.group(fakePantheon.privacyGroupId), undefined, 'a created group id must come from its members and seed');
  t.deepEqual(a.legacyGroup(A, [B]).members, [A, B], 'legacy groups are always built from the keys given');
});

test('a payload is kept only from a member that sent it itself, for a group this node is in', (t) => {
  const a = manager(PA);
  const payload = new Uint8Array([7]);
  const notForA = sentTo(PEVIL, B, payload, manager(PEVIL).legacyGroup(EVIL, [B]));
  t.regex(a.onMessage(EVIL, notForA)!, /does not take/);
  t.is(a.receive(notForA.key), undefined, 'A is not in the group');
  const ok = sentTo(PEVIL, A, payload, manager(PEVIL).legacyGroup(EVIL, [A]));
  t.regex(a.onMessage(B, ok)!, /names sender/);
  t.is(a.receive(ok.key), undefined, 'relayed by another key: dropped');
  t.is(a.onMessage(EVIL, ok), undefined);
  t.deepEqual(a.receive(ok.key)?.payload, payload, 'from the sender itself, to a group with A: kept and opened');
});

test('floods stay within the per-sender budget and never evict what this node sent', (t) => {
  const a = manager(PA, new Net(), { maxPayloadBytes: 10_000, maxPayloadBytesPerSender: 3_000 });
  const own = a.send(new Uint8Array(4_000).fill(1), a.legacyGroup(A, [B]));
  const group = a.legacyGroup(EVIL, [A]);
  let kept = 0;
  for (let i = 0; i < 50; i++) {
    const m = sentTo(PEVIL, A, new Uint8Array(1_000).fill(i), group);
    a.onMessage(EVIL, m);
    if (a.receive(m.key)) kept++;
  }
  t.is(kept, 3, 'at most 3,000 bytes from one sender');
  t.truthy(a.receive(own), 'its own payload stays');
});

test('a send needs every member reachable (Tessera refused an unreachable recipient)', (t) => {
  const net = new Net();
  net.down.add(C);
  const a = manager(PA, net);
  const e = t.throws(() => a.send(new Uint8Array([1]), a.legacyGroup(A, [B, C])), { instanceOf: PtmError });
  t.is(e!.enclaveError, 'NodeMissingPeerUrl');
  t.deepEqual(net.sent, []);
});

test('a payload travels encrypted: the captured message holds no plaintext, each recipient gets its own box, the sender keeps its own envelope', (t) => {
  const payload = new TextEncoder().encode('private payload: transfer 1000 tokens to the secret counterparty');
  const net = new Net();
  const a = manager(PA, net);
  const key = a.send(payload, a.legacyGroup(A, [B, C]));
  t.is(net.sent.length, 2);
  for (const [, m] of net.sent) {
    const wire = encodePtmMessage(m).data;
    t.false(contains(wire, payload), 'the wire bytes do not contain the payload');
    t.false(contains(wire, payload.subarray(0, 16)), 'nor a piece of it');
  }
  const [toB, toC] = net.sent.map(([, m]) => m as PayloadMessage);
  t.notDeepEqual(toB!.envelope.box, toC!.envelope.box, 'one box per recipient');
  t.deepEqual(toB!.envelope.cipherText, toC!.envelope.cipherText, 'one ciphertext for all');
  const b = manager(PB);
  t.is(b.onMessage(A, toB!), undefined);
  t.deepEqual(b.receive(key)?.payload, payload, 'the recipient opens it');
  t.deepEqual(a.receive(key)?.payload, payload);
  t.truthy(openEnvelope(a.receive(key)!.envelope, boxKey(PA.privateKey, fromBase64(A)!)!), "the sender's own envelope opens with its key");
});

test('a non-recipient cannot open a payload, even with its group check planted off', (t) => {
  const payload = new Uint8Array(64).fill(0x42);
  const group = manager(PA).legacyGroup(A, [B]);
  const toB = sentTo(PA, B, payload, group);
  t.is(openEnvelope(toB.envelope, boxKey(PC.privateKey, fromBase64(A)!)!), undefined, "C's key does not open B's box");
  const c = manager(PC);
  t.regex(c.onMessage(A, toB)!, /does not take/, 'refused by the group check');
  // Planted: C's manager takes any group, as if it were a member.
  (c as unknown as { acceptGroup: (from: string, g: PrivacyGroup) => PrivacyGroup }).acceptGroup = (_from, g) => g;
  t.regex(c.onMessage(A, toB)!, /does not open with this node's key/, 'the encryption still keeps it out');
  t.is(c.receive(toB.key), undefined);
});

test('a changed payload message is refused: ciphertext, nonces, box or key', (t) => {
  const payload = new Uint8Array(100).fill(3);
  const toB = sentTo(PA, B, payload, manager(PA).legacyGroup(A, [B]));
  const flip = (bytes: Uint8Array, at = 0) => {
    const copy = Uint8Array.from(bytes);
    copy[at]! ^= 1;
    return copy;
  };
  const tampered: Array<[string, PayloadMessage]> = [
    ['ciphertext', { ...toB, envelope: { ...toB.envelope, cipherText: flip(toB.envelope.cipherText, 40) } }],
    ['cipher nonce', { ...toB, envelope: { ...toB.envelope, cipherNonce: flip(toB.envelope.cipherNonce) } }],
    ['recipient nonce', { ...toB, envelope: { ...toB.envelope, recipientNonce: flip(toB.envelope.recipientNonce) } }],
    ['box', { ...toB, envelope: { ...toB.envelope, box: flip(toB.envelope.box, 20) } }],
    ['key', { ...toB, key: Buffer.from(flip(fromBase64(toB.key)!)).toString('base64') }],
  ];
  for (const [what, m] of tampered) {
    const b = manager(PB);
    t.regex(b.onMessage(A, m)!, /does not open/, what);
    t.is(b.receive(m.key), undefined, what);
  }
  const b = manager(PB);
  t.is(b.onMessage(A, toB), undefined, 'the message as sent is kept');
});

test("the payload's key commits to its master key: a box with another master key is refused", (t) => {
  const payload = new Uint8Array([1, 2, 3]);
  const toB = sentTo(PA, B, payload, manager(PA).legacyGroup(A, [B]));
  // A hostile sender makes B's copy decrypt (to other bytes) under a second master key, same key id.
  const other = encryptPayload(new Uint8Array([9, 9, 9]), randomBytes);
  const shared = boxKey(PA.privateKey, fromBase64(B)!)!;
  const split: PayloadMessage = { ...toB, envelope: { ...toB.envelope, cipherText: other.cipherText, cipherNonce: other.cipherNonce, box: boxMasterKey(other.masterKey, shared, toB.envelope.recipientNonce) } };
  t.truthy(openEnvelope(split.envelope, boxKey(PB.privateKey, fromBase64(A)!)!), 'the box itself opens');
  const b = manager(PB);
  t.regex(b.onMessage(A, split)!, /its key is not its ciphertext's/);
  t.is(b.receive(toB.key), undefined);
});

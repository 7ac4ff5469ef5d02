/**
 * The manager trusts nothing from the wire: hostile group messages, forged legacy groups and
 * payloads from non-members are dropped; floods stay within the byte budget and never push out
 * what this node made; a send needs every member reachable.
 */
import test from 'ava';
import { keccak256 } from '../crypto/keccak.ts';
import { toBase64 } from './private-transaction.ts';
import { PrivateTransactionManager, PtmError, expectedGroupId, type PtmMessage, type PtmNetwork } from './private-tx-manager.ts';

const key = (name: string) => toBase64(keccak256(new TextEncoder().encode(name)));
const [A, B, EVIL, C] = ['a', 'b', 'evil', 'c'].map(key) as [string, string, string, string];

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

test('a known group is never changed from the wire; a group whose id does not match its members is dropped', (t) => {
  const net = new Net();
  const a = new PrivateTransactionManager(A, net);
  const g = a.createGroup([A, B], 'pair', '', new Uint8Array(32).fill(1));
  t.is(expectedGroupId(g) as string, g.privacyGroupId);
  a.onMessage(EVIL, { kind: 'group', group: { ...g, members: [A, EVIL] } });
  t.deepEqual(a.group(g.privacyGroupId)!.members, [A, B], 'the hostile overwrite is ignored');
  net.sent = [];
  a.send(new Uint8Array([1, 2, 3]), a.group(g.privacyGroupId)!);
  t.deepEqual(net.sent.map(([to]) => to), [B], 'the payload still goes to B only');

  const legacy = a.legacyGroup(A, [B]);
  const forged = { ...legacy, members: [EVIL, A] };
  const b = new PrivateTransactionManager(A, new Net());
  b.onMessage(EVIL, { kind: 'group', group: forged });
  t.is(b.group(legacy.privacyGroupId), undefined, 'a legacy id that is not its members\' is dropped');
  const fakePantheon = { ...g, privacyGroupId: toBase64(new Uint8Array(32).fill(9)), members: [A, EVIL] };
  b.onMessage(EVIL, { kind: 'group', group: fakePantheon });
  t.is(b.group(fakePantheon.privacyGroupId), undefined, 'a created group id must come from its members and seed');
  t.deepEqual(a.legacyGroup(A, [B]).members, [A, B], 'legacy groups are always built from the keys given');
});

test('a payload is kept only from a member that sent it itself, for a group this node is in', (t) => {
  const a = new PrivateTransactionManager(A, new Net());
  const evil = new PrivateTransactionManager(EVIL, new Net());
  const group = evil.legacyGroup(EVIL, [B]);
  const payload = new Uint8Array([7]);
  const sent = (() => {
    const net = new Net();
    const m = new PrivateTransactionManager(EVIL, net);
    m.send(payload, group);
    return net.sent[0]![1] as Extract<PtmMessage, { kind: 'payload' }>;
  })();
  a.onMessage(EVIL, sent);
  t.is(a.receive(sent.key), undefined, 'A is not in the group');
  const withA = evil.legacyGroup(EVIL, [A]);
  const net = new Net();
  new PrivateTransactionManager(EVIL, net).send(payload, withA);
  const ok = net.sent[0]![1] as Extract<PtmMessage, { kind: 'payload' }>;
  a.onMessage(B, ok);
  t.is(a.receive(ok.key), undefined, 'relayed by another key: dropped');
  a.onMessage(EVIL, ok);
  t.truthy(a.receive(ok.key), 'from the sender itself, to a group with A: kept');
});

test('floods stay within the per-sender budget and never evict what this node sent', (t) => {
  const a = new PrivateTransactionManager(A, new Net(), { maxPayloadBytes: 10_000, maxPayloadBytesPerSender: 3_000 });
  const own = a.send(new Uint8Array(4_000).fill(1), a.legacyGroup(A, [B]));
  const group = a.legacyGroup(EVIL, [A]);
  let kept = 0;
  for (let i = 0; i < 50; i++) {
    const net = new Net();
    new PrivateTransactionManager(EVIL, net).send(new Uint8Array(1_000).fill(i), group);
    const m = net.sent[0]![1] as Extract<PtmMessage, { kind: 'payload' }>;
    a.onMessage(EVIL, m);
    if (a.receive(m.key)) kept++;
  }
  t.is(kept, 3, 'at most 3,000 bytes from one sender');
  t.truthy(a.receive(own), 'its own payload stays');
});

test('a send needs every member reachable (Tessera refused an unreachable recipient)', (t) => {
  const net = new Net();
  net.down.add(C);
  const a = new PrivateTransactionManager(A, net);
  const e = t.throws(() => a.send(new Uint8Array([1]), a.legacyGroup(A, [B, C])), { instanceOf: PtmError });
  t.is(e!.enclaveError, 'NodeMissingPeerUrl');
  t.deepEqual(net.sent, []);
});

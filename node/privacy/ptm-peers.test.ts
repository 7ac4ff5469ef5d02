/** Privacy keys belong to the first peer that announces them: another peer cannot take one over. */
import test from 'ava';
import type { Transport, WireMessage } from '../runtime/ports.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { toBase64 } from './private-transaction.ts';
import { PtmPeers } from './ptm-peers.ts';
import { encodePtmMessage } from './ptm-wire.ts';

const key = (name: string) => toBase64(keccak256(new TextEncoder().encode(name)));

function transport(sent: Array<[string, WireMessage]>): Transport {
  return { localId: 'me', peers: () => [], send: (to, m) => void sent.push([to, m]), setHandlers: () => {} };
}

test('an announce of a key another peer owns is ignored; messages go to the owner only', (t) => {
  const sent: Array<[string, WireMessage]> = [];
  const peers = new PtmPeers(transport(sent), key('me'));
  const announce = (k: string) => encodePtmMessage({ kind: 'announce', publicKey: k });
  peers.onPeerConnected('b');
  peers.onPeerConnected('evil');
  peers.onMessage('b', announce(key('b')).code, announce(key('b')).data);
  peers.onMessage('evil', announce(key('b')).code, announce(key('b')).data);
  t.is(peers.keyOf('evil'), undefined);
  peers.onMessage('evil', announce(key('evil')).code, announce(key('evil')).data);
  peers.onMessage('evil', announce(key('c')).code, announce(key('c')).data);
  t.is(peers.keyOf('evil'), key('evil'), 'a peer announces one key only');
  sent.length = 0;
  peers.send(key('b'), { kind: 'delete-group', privacyGroupId: key('g') });
  t.deepEqual(sent.map(([to]) => to), ['b']);
  peers.onPeerDisconnected('b');
  t.false(peers.reachable(key('b')));
  peers.onMessage('evil', announce(key('b')).code, announce(key('b')).data);
  t.is(peers.keyOf('evil'), key('evil'), 'still not after the owner disconnects');
  peers.send(key('b'), { kind: 'delete-group', privacyGroupId: key('g') });
  t.deepEqual(sent.map(([to]) => to), ['b'], 'held for the owner');
  peers.onPeerConnected('b');
  t.deepEqual(sent.filter(([, m]) => m.code !== 0).map(([to]) => to), ['b', 'b'], 'delivered when the owner is back');
  t.true(peers.reachable(key('b')));
});

test('malformed ptm messages are dropped', (t) => {
  const peers = new PtmPeers(transport([]), key('me'));
  peers.onPeerConnected('x');
  t.notThrows(() => peers.onMessage('x', 0, new Uint8Array([0xc1, 0x80])));
  t.notThrows(() => peers.onMessage('x', 1, new Uint8Array([0xff])));
  t.notThrows(() => peers.onMessage('x', 9, new Uint8Array([0xc0])));
  t.is(peers.keyOf('x'), undefined);
});

import test from 'ava';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '../../crypto/bytes.ts';
import { NodeTable, type TableNode } from './node-table.ts';

function node(i: number, extra: Partial<TableNode> = {}): TableNode {
  const id = new Uint8Array(64).fill(i);
  return { id, idHex: bytesToHex(id).slice(2), host: '127.0.0.1', udpPort: 30000 + i, tcpPort: 30000 + i, idHash: NodeTable.hashOf(id), addedAtMs: 0, lastPongMs: i, failedPings: 0, ...extra };
}

const local = bytesToHex(new Uint8Array(64)).slice(2);

test('the table is bounded: a full table refuses newcomers unless an entry has missed pings', (t) => {
  const table = new NodeTable(local, 3);
  t.is(table.add(node(1)), 'added');
  t.is(table.add(node(2)), 'added');
  t.is(table.add(node(3)), 'added');
  t.is(table.add(node(4)), 'full');
  t.is(table.size, 3);
  t.is(table.add(node(2, { udpPort: 1 })), 'updated');
  t.is(table.get(node(2).idHex)!.udpPort, 1);
  table.get(node(3).idHex)!.failedPings = 1;
  table.get(node(1).idHex)!.failedPings = 2;
  t.is(table.add(node(4)), 'added');
  t.is(table.size, 3);
  t.is(table.get(node(1).idHex), undefined, 'the entry with the most missed pings made room');
  t.truthy(table.get(node(3).idHex));
  t.throws(() => table.add({ ...node(0), idHex: local }));
});

test('closest sorts by XOR distance of keccak256(id) to keccak256(target)', (t) => {
  const table = new NodeTable(local, 100);
  for (let i = 1; i <= 40; i++) table.add(node(i));
  const target = new Uint8Array(64).fill(200);
  const th = keccak_256(target);
  const dist = (n: TableNode) => BigInt(bytesToHex(n.idHash.map((b, i) => b ^ th[i]!)));
  const expected = table.all().sort((a, b) => (dist(a) < dist(b) ? -1 : dist(a) > dist(b) ? 1 : 0)).slice(0, 16);
  t.deepEqual(table.closest(target, 16).map((n) => n.idHex), expected.map((n) => n.idHex));
  t.is(table.closest(target, 16, (n) => n.udpPort % 2 === 0).length, 16);
  t.true(table.closest(target, 50, (n) => n.udpPort % 2 === 0).every((n) => n.udpPort % 2 === 0));
  t.deepEqual(table.leastRecentlySeen(2).map((n) => n.lastPongMs), [1, 2]);
});

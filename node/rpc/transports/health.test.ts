import test from 'ava';
import { healthBody, healthStatus, liveness, parseJavaInteger, readiness } from './health.ts';

test('body and status are Besu\'s (Vert.x encodePrettily)', (t) => {
  t.is(healthBody(true), '{\n  "status" : "UP"\n}');
  t.is(healthBody(false), '{\n  "status" : "DOWN"\n}');
  t.is(healthStatus(true), 200);
  t.is(healthStatus(false), 503);
  t.true(liveness());
});

test('readiness: peers against minPeers (default 1) only with P2P enabled', (t) => {
  t.false(readiness({ peerCount: 0, p2pEnabled: true, syncing: undefined }));
  t.true(readiness({ peerCount: 1, p2pEnabled: true, syncing: undefined }));
  t.true(readiness({ peerCount: 0, p2pEnabled: false, syncing: undefined }));
  t.true(readiness({ peerCount: 0, p2pEnabled: true, syncing: undefined, minPeers: '0' }));
  t.false(readiness({ peerCount: 2, p2pEnabled: true, syncing: undefined, minPeers: '3' }));
  t.true(readiness({ peerCount: 3, p2pEnabled: true, syncing: undefined, minPeers: '+3' }));
  t.true(readiness({ peerCount: 0, p2pEnabled: true, syncing: undefined, minPeers: '-1' }));
  // non-numeric → DOWN, but only when the check runs
  t.false(readiness({ peerCount: 5, p2pEnabled: true, syncing: undefined, minPeers: 'abc' }));
  t.false(readiness({ peerCount: 5, p2pEnabled: true, syncing: undefined, minPeers: '' }));
  t.false(readiness({ peerCount: 5, p2pEnabled: true, syncing: undefined, minPeers: ' 1' }));
  t.false(readiness({ peerCount: 5, p2pEnabled: true, syncing: undefined, minPeers: '2147483648' }));
  t.true(readiness({ peerCount: 5, p2pEnabled: false, syncing: undefined, minPeers: 'abc' }));
});

test('readiness: blocks behind against maxBlocksBehind (default 2) only while syncing', (t) => {
  const base = { peerCount: 1, p2pEnabled: true };
  t.true(readiness({ ...base, syncing: { current: 10, highest: 12 } }));
  t.false(readiness({ ...base, syncing: { current: 10, highest: 13 } }));
  t.true(readiness({ ...base, syncing: { current: 10, highest: 13 }, maxBlocksBehind: '3' }));
  t.false(readiness({ ...base, syncing: { current: 10, highest: 13 }, maxBlocksBehind: 'x' }));
  t.true(readiness({ ...base, syncing: undefined, maxBlocksBehind: 'x' }));
  t.true(readiness({ ...base, syncing: { current: 10n, highest: 10n ** 18n }, maxBlocksBehind: '9223372036854775807' }));
  t.false(readiness({ ...base, syncing: { current: 10, highest: 11 }, maxBlocksBehind: '9223372036854775808' }));
  // peers are checked first
  t.false(readiness({ peerCount: 0, p2pEnabled: true, syncing: { current: 1, highest: 1 } }));
});

test('parseJavaInteger follows Integer.parseInt / Long.parseLong', (t) => {
  t.is(parseJavaInteger('0', 32), 0n);
  t.is(parseJavaInteger('-2147483648', 32), -2147483648n);
  t.is(parseJavaInteger('2147483647', 32), 2147483647n);
  t.is(parseJavaInteger('2147483648', 32), undefined);
  t.is(parseJavaInteger('+', 32), undefined);
  t.is(parseJavaInteger('-', 32), undefined);
  t.is(parseJavaInteger('1.0', 32), undefined);
  t.is(parseJavaInteger('0x10', 32), undefined);
  t.is(parseJavaInteger('1e3', 64), undefined);
  t.is(parseJavaInteger('007', 32), 7n);
  // Character.digit accepts other Unicode decimal digits (here Arabic-Indic and fullwidth)
  t.is(parseJavaInteger('\u0663\u0662', 32), 32n);
  t.is(parseJavaInteger('\uFF11\uFF10', 32), 10n);
  // but not supplementary ones (Java iterates UTF-16 chars)
  t.is(parseJavaInteger('\u{1D7CF}', 32), undefined);
});

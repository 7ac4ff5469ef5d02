import test from 'ava';
import { maxRemotelyInitiatedPeers, PeerLimitError } from './peer-limits.ts';

const share = (maxPeers: number, maxPercentage: number) => maxRemotelyInitiatedPeers(maxPeers, { enabled: true, maxPercentage });

test('the share is Math.round of a Java float fraction times --max-peers, as BesuCommand computes it', (t) => {
  t.is(share(25, 60), 15);
  t.is(share(25, 12), 3, 'BesuCommandTest.remoteConnectionsPercentageOptionMustBeUsed');
  t.is(share(5, 60), 3);
  t.is(share(5, 50), 3, 'halves round up');
  t.is(share(5, 10), 1);
  t.is(share(25, 100), 25);
  t.is(share(0, 60), 0);
  // 0.53f * 50 is 26.499998 in float arithmetic, so Besu gets 26 where exact arithmetic gives 26.5 -> 27.
  t.is(share(50, 53), 26);
  t.is(share(150, 39), 58);
});

test('without the limit the share is --max-peers; a percentage outside 1..100 with the limit is refused as Besu refuses to start', (t) => {
  t.is(maxRemotelyInitiatedPeers(25, { enabled: false, maxPercentage: 0 }), 25);
  t.is(maxRemotelyInitiatedPeers(25, { enabled: false, maxPercentage: 60 }), 25);
  t.throws(() => share(25, 0), { instanceOf: PeerLimitError, message: /0 is not allowed/ });
  t.throws(() => share(25, 101), { instanceOf: PeerLimitError, message: /between 0 and 100 inclusive/ });
  t.throws(() => share(25, 60.5), { instanceOf: PeerLimitError });
});

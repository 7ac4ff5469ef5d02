import test from 'ava';
import { IpRateLimiter } from './ip-rate-limiter.ts';

test('each IP gets its own bucket of packetsPerSecond tokens, refilled over time', (t) => {
  const limiter = new IpRateLimiter(5, 10);
  let allowed = 0;
  for (let i = 0; i < 20; i++) if (limiter.allow('1.1.1.1', 1000)) allowed++;
  t.is(allowed, 5);
  t.true(limiter.allow('2.2.2.2', 1000), 'another IP is unaffected');
  t.false(limiter.allow('1.1.1.1', 1100));
  t.true(limiter.allow('1.1.1.1', 1200), 'one token back after 200 ms at 5/s');
  t.false(limiter.allow('1.1.1.1', 1200));
  allowed = 0;
  for (let i = 0; i < 20; i++) if (limiter.allow('1.1.1.1', 60_000)) allowed++;
  t.is(allowed, 5, 'the bucket never holds more than one second of tokens');
});

test('the number of tracked IPs is bounded', (t) => {
  const limiter = new IpRateLimiter(1, 3);
  for (let i = 0; i < 100; i++) limiter.allow(`10.0.0.${i}`, 0);
  t.is(limiter.trackedIps(), 3);
});

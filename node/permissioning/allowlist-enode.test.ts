import test from 'ava';
import { canonicalIp, formatAllowlistEnode, InvalidEnodeError, parseAllowlistEnode, sameEnode, sameListeningEndpoint } from './allowlist-enode.ts';

// The node id of Besu's permissioning test files and docs.
const ID = '6f8a80d14311c39f35f516fa664deaaaa13e85b2f7493f37f6144d86991ec012937307647bd3b9a82abe2974e1407241d54947bbb39763a4cac9f77166ad92a0';

test('parses Besu enode URLs and prints them as Besu does', (t) => {
  t.deepEqual(parseAllowlistEnode(`enode://${ID}@192.168.0.9:4567`), { nodeId: ID, ip: '192.168.0.9', listeningPort: 4567, discoveryPort: 4567 });
  // Upper-case id and scheme, a redundant discport, a path: the canonical text drops them.
  const odd = parseAllowlistEnode(`ENODE://${ID.toUpperCase()}@10.0.0.1:30303/?discport=30303`);
  t.is(formatAllowlistEnode(odd), `enode://${ID}@10.0.0.1:30303`);
  t.is(formatAllowlistEnode(parseAllowlistEnode(`enode://${ID}@10.0.0.1:30303?discport=30301`)), `enode://${ID}@10.0.0.1:30303?discport=30301`);
  // Port 0: not listening; discport=0: no discovery.
  t.deepEqual(parseAllowlistEnode(`enode://${ID}@10.0.0.1:0`), { nodeId: ID, ip: '10.0.0.1' });
  t.is(formatAllowlistEnode(parseAllowlistEnode(`enode://${ID}@10.0.0.1:30303?discport=0`)), `enode://${ID}@10.0.0.1:30303?discport=0`);
  // IPv6 in brackets, canonical form; IPv4-mapped IPv6 is IPv4.
  t.is(formatAllowlistEnode(parseAllowlistEnode(`enode://${ID}@[0:0:0:0:0:0:0:1]:30303`)), `enode://${ID}@[::1]:30303`);
  t.is(formatAllowlistEnode(parseAllowlistEnode(`enode://${ID}@[2001:DB8:0:0:1:0:0:1]:1`)), `enode://${ID}@[2001:db8::1:0:0:1]:1`);
  t.is(formatAllowlistEnode(parseAllowlistEnode(`enode://${ID}@[::ffff:127.0.0.1]:30303`)), `enode://${ID}@127.0.0.1:30303`);
});

test('refuses what Besu refuses, with its reasons', (t) => {
  const refused = (url: string, reason: RegExp) => {
    const err = t.throws(() => parseAllowlistEnode(url), { instanceOf: InvalidEnodeError });
    t.regex(err!.message, /^Invalid enode URL syntax '.*'\. Enode URL should have the following format/);
    t.regex(err!.message, reason, url);
  };
  refused('', /Invalid empty value/);
  refused(`enode://bob@192.168.0.9:4567`, /Invalid node ID/);
  refused(`enode://0x${ID.slice(2)}@192.168.0.9:4567`, /Invalid node ID/);
  refused(`enode://${ID}@localhost:4567`, /Invalid ip address/); // no host names while DNS is off
  refused(`enode://${ID}@192.168.0.09:4567`, /Invalid ip address/);
  refused(`enode://${ID}@256.1.1.1:4567`, /Invalid ip address/);
  refused(`enode://${ID}@192.168.0.9`, /listening port requires a value between 1 and 65535. Got -1/);
  refused(`enode://${ID}@192.168.0.9:70000`, /listening port requires/);
  refused(`enode://${ID}@192.168.0.9:4567?discport=70000`, /discovery port requires/);
  refused(`enode://${ID}@192.168.0.9:4567?foo=1`, /Invalid discovery port: 'foo=1'/);
  refused(`http://${ID}@192.168.0.9:4567`, /Invalid URI scheme/);
  refused(`enode://@192.168.0.9:4567`, /Missing node ID/);
  refused(`enode://${ID}@:4567`, /Missing or invalid host/);
  refused(`enode://${ID}@::1:4567`, /Missing or invalid host/);
});

test('equality is node id, IP and both ports; permission is IP and listening port only', (t) => {
  const a = parseAllowlistEnode(`enode://${ID}@10.0.0.1:30303`);
  t.true(sameEnode(a, parseAllowlistEnode(`enode://${ID.toUpperCase()}@10.0.0.1:30303?discport=30303`)));
  t.false(sameEnode(a, parseAllowlistEnode(`enode://${ID}@10.0.0.1:30303?discport=30301`)));
  t.false(sameEnode(a, parseAllowlistEnode(`enode://${ID.replace('6f', '6e')}@10.0.0.1:30303`)));
  t.true(sameListeningEndpoint(a, '10.0.0.1', 30303));
  t.true(sameListeningEndpoint(a, '::ffff:10.0.0.1', 30303), 'a dual-stack socket address');
  t.false(sameListeningEndpoint(a, '10.0.0.1', 30304));
  t.false(sameListeningEndpoint(a, '10.0.0.2', 30303));
  t.false(sameListeningEndpoint(a, 'localhost', 30303));
  const notListening = parseAllowlistEnode(`enode://${ID}@10.0.0.1:0`);
  t.true(sameListeningEndpoint(notListening, '10.0.0.1', 0));
  t.false(sameListeningEndpoint(notListening, '10.0.0.1', 30303));
});

test('canonical IPs', (t) => {
  t.is(canonicalIp('127.0.0.1'), '127.0.0.1');
  t.is(canonicalIp('::1'), '::1');
  t.is(canonicalIp('1:0:0:2:0:0:0:3'), '1:0:0:2::3');
  t.is(canonicalIp('1:0:0:2:0:0:3:4'), '1::2:0:0:3:4', 'the first of equal runs');
  t.is(canonicalIp('1:2:3:4:5:6:7:0'), '1:2:3:4:5:6:7:0', 'a single zero group stays');
  t.is(canonicalIp('::'), '::');
  t.is(canonicalIp('::1.2.3.4'), '::102:304');
  t.is(canonicalIp('1:2:3:4:5:6:7:8:9'), undefined);
  t.is(canonicalIp('1::2::3'), undefined);
  t.is(canonicalIp('example.com'), undefined);
});

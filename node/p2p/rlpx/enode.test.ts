import test from 'ava';
import { bytesToHex } from '../../crypto/bytes.ts';
import { enodeUrl, EnodeUrlError, parseEnodeUrl } from './enode.ts';
import { nodeIdFromPrivateKey } from './node-identity.ts';

const id = nodeIdFromPrivateKey(new Uint8Array(32).fill(1));
const idHex = bytesToHex(id).slice(2);

test('enodeUrl formats and parseEnodeUrl reads back', (t) => {
  const url = enodeUrl(id, '127.0.0.1', 30303);
  t.is(url, `enode://${idHex}@127.0.0.1:30303`);
  const e = parseEnodeUrl(url);
  t.deepEqual(e.nodeId, id);
  t.is(e.host, '127.0.0.1');
  t.is(e.tcpPort, 30303);
  t.is(e.discoveryPort, undefined);
});

test('discport and IPv6 hosts', (t) => {
  const url = enodeUrl(id, '::1', 30303, 30301);
  t.is(url, `enode://${idHex}@[::1]:30303?discport=30301`);
  t.like(parseEnodeUrl(url), { host: '::1', tcpPort: 30303, discoveryPort: 30301 });
  t.is(enodeUrl(id, 'node1.example', 1, 1), `enode://${idHex}@node1.example:1`);
  t.like(parseEnodeUrl(`enode://${idHex.toUpperCase()}@node1.example:0`), { host: 'node1.example', tcpPort: 0 });
});

test('bad enode URLs fail with a message naming the problem', (t) => {
  const cases: [string, RegExp][] = [
    [`http://${idHex}@1.2.3.4:1`, /expected enode/],
    [`enode://${idHex.slice(2)}@1.2.3.4:1`, /128 hex digits, got 126/],
    [`enode://${'zz' + idHex.slice(2)}@1.2.3.4:1`, /not hexadecimal/],
    [`enode://${'00'.repeat(64)}@1.2.3.4:1`, /not a secp256k1 public key/],
    [`enode://${idHex}@1.2.3.4`, /missing :<port>/],
    [`enode://${idHex}@1.2.3.4:65536`, /out of range/],
    [`enode://${idHex}@1.2.3.4:x`, /not a number/],
    [`enode://${idHex}@:30303`, /missing host/],
    [`enode://${idHex}@::1:30303`, /brackets/],
    [`enode://${idHex}@1.2.3.4:1?foo=2`, /unknown query parameter/],
    [`enode://${idHex}@1.2.3.4:1?discport=-1`, /not a number/],
    [`enode://${idHex}@a b:1`, /invalid characters/],
  ];
  for (const [url, message] of cases) t.throws(() => parseEnodeUrl(url), { instanceOf: EnodeUrlError, message }, url);
  t.throws(() => enodeUrl(id.subarray(1), 'h', 1));
  t.throws(() => enodeUrl(id, 'h', 70000));
});

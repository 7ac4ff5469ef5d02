import test from 'ava';
import { bytesToIp, ipToBytes, isRelayableIp, normalizeIp } from './ip-address.ts';

test('IPv4 and IPv6 text converts to wire bytes and back', (t) => {
  const cases: Array<[string, string, string]> = [
    ['127.0.0.1', '7f000001', '127.0.0.1'],
    ['::1', '00000000000000000000000000000001', '::1'],
    ['::', '00000000000000000000000000000000', '::'],
    ['2001:db8:3c4d:15::abcd:ef12', '20010db83c4d001500000000abcdef12', '2001:db8:3c4d:15::abcd:ef12'],
    ['2001:DB8:0:0:1:0:0:1', '20010db8000000000001000000000001', '2001:db8::1:0:0:1'],
    ['fe80::1%eth0', 'fe800000000000000000000000000001', 'fe80::1'],
    ['1:2:3:4:5:6:7:8', '00010002000300040005000600070008', '1:2:3:4:5:6:7:8'],
    ['1:0:3:4:5:6:7:8', '00010000000300040005000600070008', '1:0:3:4:5:6:7:8'],
    ['::ffff:10.1.2.3', '0a010203', '10.1.2.3'],
  ];
  for (const [text, hex, canonical] of cases) {
    const bytes = ipToBytes(text);
    t.is(bytes && Buffer.from(bytes).toString('hex'), hex, text);
    t.is(bytesToIp(bytes!), canonical, text);
    t.is(normalizeIp(text), canonical);
  }
  t.is(bytesToIp(Buffer.from('00000000000000000000ffff0a010203', 'hex')), '10.1.2.3');
});

test('non-addresses are refused', (t) => {
  for (const bad of ['', 'localhost', '1.2.3', '1.2.3.4.5', '256.1.1.1', '1.2.3.04x', '1::2::3', '1:2:3:4:5:6:7:8:9', '12345::', ':::', 'g::1', '1:2:3:4:5:6:7::8:9']) {
    t.is(ipToBytes(bad), undefined, bad);
  }
  t.is(bytesToIp(new Uint8Array(5)), undefined);
});

test('relayed addresses: loopback only from loopback, LAN only from LAN, never unspecified or multicast', (t) => {
  const ip = (s: string) => ipToBytes(s)!;
  t.true(isRelayableIp(ip('127.0.0.1'), ip('127.0.0.1')));
  t.false(isRelayableIp(ip('127.0.0.1'), ip('8.8.8.8')));
  t.true(isRelayableIp(ip('192.168.1.5'), ip('10.0.0.1')));
  t.true(isRelayableIp(ip('192.168.1.5'), ip('127.0.0.1')));
  t.false(isRelayableIp(ip('192.168.1.5'), ip('8.8.8.8')));
  t.true(isRelayableIp(ip('8.8.4.4'), ip('8.8.8.8')));
  t.false(isRelayableIp(ip('0.0.0.0'), ip('127.0.0.1')));
  t.false(isRelayableIp(ip('239.1.1.1'), ip('127.0.0.1')));
  t.false(isRelayableIp(ip('::1'), ip('2001:db8::1')));
});

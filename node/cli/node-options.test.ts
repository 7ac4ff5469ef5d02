import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseNodeOptions } from './node-options.ts';

test('Besu defaults', (t) => {
  const o = parseNodeOptions([]);
  t.is(o.rpcHttp.port, 8545);
  t.is(o.rpcWs.port, 8546);
  t.deepEqual(o.rpcHttp.apis, ['ETH', 'NET', 'WEB3']);
  t.false(o.rpcHttp.enabled);
  t.is(o.ipc.path, './build/data/besu.ipc');
  t.deepEqual(o.hostAllowlist, ['localhost', '127.0.0.1']);
  t.is(o.minGasPrice, 1000n);
  t.is(o.rpcHttp.maxBatchSize, 1024);
});

test('command line options, including --flag=true and lists', (t) => {
  const o = parseNodeOptions(['--rpc-http-enabled=true', '--rpc-http-api=eth,net,qbft', '--rpc-http-port', '9999', '--data-path', '/tmp/x', '--Xrpc-ipc-enabled']);
  t.true(o.rpcHttp.enabled);
  t.deepEqual(o.rpcHttp.apis, ['ETH', 'NET', 'QBFT']);
  t.is(o.rpcHttp.port, 9999);
  t.is(o.ipc.path, '/tmp/x/besu.ipc');
  t.true(o.ipc.enabled);
});

test('a TOML config file, overridden by the command line', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-opts-'));
  const file = join(dir, 'config.toml');
  writeFileSync(file, 'rpc-http-enabled=true\nrpc-http-port=8600\nrpc-http-api=["ETH","QBFT"]\nhost-allowlist=["*"]\n');
  const o = parseNodeOptions(['--config-file', file, '--rpc-http-port', '8700']);
  t.true(o.rpcHttp.enabled);
  t.is(o.rpcHttp.port, 8700);
  t.deepEqual(o.rpcHttp.apis, ['ETH', 'QBFT']);
  t.deepEqual(o.hostAllowlist, ['*']);
  writeFileSync(file, 'no-such-option=1\n');
  t.throws(() => parseNodeOptions(['--config-file', file]), { message: /Unknown option in TOML configuration file: no-such-option/ });
  writeFileSync(file, 'rpc-http-port="eighty"\n');
  t.throws(() => parseNodeOptions(['--config-file', file]), { message: /--rpc-http-port/ });
});

test('bad flags and values are clear errors', (t) => {
  t.throws(() => parseNodeOptions(['--rpc-http-prot', '1']), { message: /Unknown option '--rpc-http-prot'/ });
  t.throws(() => parseNodeOptions(['--bug', 'besu-6613']), { message: /--bug: known-bug switches run only in the simulator/ });
  t.throws(() => parseNodeOptions(['--rpc-http-port', 'abc']), { message: /'--rpc-http-port'/ });
  t.throws(() => parseNodeOptions(['--min-gas-price', '-1']), { message: /--min-gas-price/ });
  t.throws(() => parseNodeOptions(['--network-id', 'x']), { message: /--network-id/ });
});

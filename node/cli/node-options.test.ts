import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseNodeOptions } from './node-options.ts';
import { enodeUrl } from '../p2p/rlpx/enode.ts';
import { nodeIdFromPrivateKey } from '../p2p/rlpx/node-identity.ts';

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

const ENODE = enodeUrl(nodeIdFromPrivateKey(Uint8Array.from({ length: 32 }, (_, i) => i + 1)), '127.0.0.1', 30303);

test('P2P options: Besu defaults and values', (t) => {
  const d = parseNodeOptions(['--data-path', '/tmp/n1']);
  t.deepEqual(d.p2p, { enabled: true, host: '127.0.0.1', interface: '0.0.0.0', port: 30303, bootnodes: [], staticNodesFile: '/tmp/n1/static-nodes.json', maxPeers: 25, maxRemotelyInitiatedPeers: 15, discoveryEnabled: true });
  const o = parseNodeOptions([`--bootnodes=${ENODE},${ENODE.replace('30303', '30304')}`, '--p2p-port=30305', '--max-peers=5', '--discovery-enabled=false', '--p2p-enabled=false', '--static-nodes-file', '/x/s.json']);
  t.deepEqual(o.p2p.bootnodes, [ENODE, ENODE.replace('30303', '30304')]);
  t.is(o.p2p.port, 30305);
  t.is(o.p2p.maxPeers, 5);
  t.false(o.p2p.discoveryEnabled);
  t.false(o.p2p.enabled);
  t.is(o.p2p.staticNodesFile, '/x/s.json');
});

test('--remote-connections-limit-enabled / --remote-connections-max-percentage: Besu\'s inbound share of --max-peers', (t) => {
  const share = (...argv: string[]) => parseNodeOptions(argv).p2p.maxRemotelyInitiatedPeers;
  t.is(share('--remote-connections-max-percentage', '12'), 3);
  t.is(share('--max-peers=5', '--remote-connections-max-percentage=50'), 3);
  t.is(share('--max-peers=5', '--remote-connections-limit-enabled=false'), 5);
  t.is(share('--remote-connections-limit-enabled=false', '--remote-connections-max-percentage=0'), 25);
  t.throws(() => share('--remote-connections-max-percentage', '150'), { message: /Invalid value for option '--remote-connections-max-percentage'.*between 0 and 100 inclusive/ });
  t.throws(() => share('--remote-connections-max-percentage', 'invalid'), { message: /Invalid value for option '--remote-connections-max-percentage'/ });
  t.throws(() => share('--remote-connections-max-percentage', '0'), { message: /'--remote-connections-max-percentage'.*0 is not allowed/ });
});

test('P2P options: a malformed bootnode or port is a usage error naming the option', (t) => {
  t.throws(() => parseNodeOptions(['--bootnodes=enode://abc@127.0.0.1:30303']), { message: /--bootnodes.*invalid enode URL/ });
  // 128 hex digits that are not a secp256k1 point: refused here, not at start-up by the transport.
  t.throws(() => parseNodeOptions([`--bootnodes=enode://${'ab'.repeat(64)}@127.0.0.1:30303`]), { message: /--bootnodes.*not a secp256k1 public key/ });
  t.throws(() => parseNodeOptions(['--p2p-port=70000']), { message: /--p2p-port/ });
});

test('--profile: ENTERPRISE sets min-gas-price 0 below the command line; unknown names refused', (t) => {
  t.is(parseNodeOptions(['--profile=ENTERPRISE']).minGasPrice, 0n);
  t.is(parseNodeOptions(['--profile=enterprise']).rpcHttp.maxActiveConnections, 300);
  t.is(parseNodeOptions(['--profile=ENTERPRISE', '--min-gas-price=7']).minGasPrice, 7n);
  t.is(parseNodeOptions(['--profile=STAKER']).minGasPrice, 1000n);
  t.throws(() => parseNodeOptions(['--profile=GAMER']), { message: /--profile.*GAMER/ });
});

test('--rpc-http-cors-origins: "all" and "*" mean any origin, "none" none, and neither mixes with domains', (t) => {
  t.deepEqual(parseNodeOptions(['--rpc-http-cors-origins=all']).rpcHttp.corsOrigins, ['*']);
  t.deepEqual(parseNodeOptions(['--rpc-http-cors-origins=*']).rpcHttp.corsOrigins, ['*']);
  t.deepEqual(parseNodeOptions(['--rpc-http-cors-origins=none']).rpcHttp.corsOrigins, []);
  t.deepEqual(parseNodeOptions(['--rpc-http-cors-origins=http://a.test,http://b.test']).rpcHttp.corsOrigins, ['http://a.test', 'http://b.test']);
  t.throws(() => parseNodeOptions(['--rpc-http-cors-origins=all,http://a.test']), { message: /can't be used with other domains/ });
});

test('--graphql-http-cors-origins: its own list (default none), read like --rpc-http-cors-origins', (t) => {
  t.deepEqual(parseNodeOptions([]).graphql.corsOrigins, []);
  const both = parseNodeOptions(['--rpc-http-cors-origins=http://a.test', '--graphql-http-cors-origins=http://g.test,http://h.test']);
  t.deepEqual(both.graphql.corsOrigins, ['http://g.test', 'http://h.test']);
  t.deepEqual(both.rpcHttp.corsOrigins, ['http://a.test']);
  t.deepEqual(parseNodeOptions(['--graphql-http-cors-origins=all']).graphql.corsOrigins, ['*']);
  t.throws(() => parseNodeOptions(['--graphql-http-cors-origins=none,http://a.test']), { message: /--graphql-http-cors-origins.*can't be used with other domains/ });
});

test('--permissions-*: off by default; enabled without a file is Besu\'s start-up error for permissions_config.toml in the data path', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-perm-'));
  t.is(parseNodeOptions(['--data-path', dir]).permissions, undefined);
  // A file named without the option enabled is not read (Besu ignores it).
  t.is(parseNodeOptions(['--data-path', dir, '--permissions-nodes-config-file', join(dir, 'none.toml')]).permissions, undefined);
  const file = `${dir}/permissions_config.toml`;
  t.throws(() => parseNodeOptions(['--data-path', dir, '--permissions-accounts-config-file-enabled']), {
    message: `Unable to read permissioning TOML config file : ${file} Configuration file does not exist: ${file}`,
  });
  t.throws(() => parseNodeOptions(['--data-path', dir, '--permissions-nodes-config-file-enabled=true']), { message: /Configuration file does not exist/ });
  writeFileSync(file, 'accounts-allowlist=["0x0000000000000000000000000000000000000009"]\n');
  const o = parseNodeOptions(['--data-path', dir, '--permissions-accounts-config-file-enabled']);
  t.deepEqual(o.permissions, {
    settings: { nodesEnabled: false, nodesFile: file, accountsEnabled: true, accountsFile: file },
    loaded: { accounts: ['0x0000000000000000000000000000000000000009'] },
  });
  t.throws(() => parseNodeOptions(['--data-path', dir, '--permissions-nodes-config-file-enabled']), { message: `nodes-allowlist config option missing in TOML config file ${file}` });
});

test('--permissions-*-config-file: separate files, from the command line or --config-file; bad TOML names the file', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-perm-'));
  const nodes = join(dir, 'nodes.toml');
  const accounts = join(dir, 'accounts.toml');
  writeFileSync(nodes, `nodes-allowlist=["${ENODE}"]\n`);
  writeFileSync(accounts, 'accounts-allowlist=[\n');
  const config = join(dir, 'config.toml');
  writeFileSync(config, `permissions-nodes-config-file-enabled=true\npermissions-nodes-config-file="${nodes}"\n`);
  const o = parseNodeOptions(['--config-file', config]);
  t.is(o.permissions?.settings.nodesFile, nodes);
  t.is(o.permissions?.loaded.nodes?.length, 1);
  t.is(o.permissions?.loaded.accounts, undefined);
  const err = t.throws(() => parseNodeOptions(['--config-file', config, '--permissions-accounts-config-file-enabled', '--permissions-accounts-config-file', accounts]));
  t.true(err!.message.startsWith(`Unable to read permissioning TOML config file : ${accounts} Invalid TOML configuration: `), err!.message);
  writeFileSync(accounts, 'accounts-allowlist=["0xfoo"]\n');
  t.throws(() => parseNodeOptions(['--permissions-accounts-config-file-enabled', '--permissions-accounts-config-file', accounts]), { message: `Invalid account 0xfoo (accounts-allowlist in ${accounts})` });
});

test('--bootnodes must be on an enabled nodes allowlist (same IP and port), as Besu checks at start-up', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-perm-'));
  const file = join(dir, 'p.toml');
  writeFileSync(file, `nodes-allowlist=["${ENODE}"]\n`);
  const args = ['--permissions-nodes-config-file-enabled', '--permissions-nodes-config-file', file];
  t.deepEqual(parseNodeOptions([...args, `--bootnodes=${ENODE}`]).p2p.bootnodes, [ENODE]);
  const other = ENODE.replace('30303', '30304');
  t.throws(() => parseNodeOptions([...args, `--bootnodes=${ENODE},${other}`]), { message: `Specified node(s) not in nodes-allowlist [${other}]` });
  // Without node permissioning the bootnodes are not checked.
  writeFileSync(file, 'accounts-allowlist=[]\n');
  t.truthy(parseNodeOptions(['--permissions-accounts-config-file-enabled', '--permissions-accounts-config-file', file, `--bootnodes=${other}`]).permissions);
});

test('--rpc-gas-cap, --rpc-max-logs-range and --rpc-max-trace-filter-range: Besu defaults, values and refusals', (t) => {
  t.deepEqual(parseNodeOptions([]).rpcLimits, { gasCap: 100_000_000n, maxLogsRange: 5000, maxTraceFilterRange: 1000, httpTimeoutMs: 30_000, wsTimeoutMs: 30_000 });
  t.deepEqual(
    parseNodeOptions(['--rpc-gas-cap', '5000000', '--rpc-max-logs-range', '0', '--rpc-max-trace-filter-range', '10', '--Xhttp-timeout-seconds', '5', '--Xws-timeout-seconds', '7']).rpcLimits,
    { gasCap: 5_000_000n, maxLogsRange: 0, maxTraceFilterRange: 10, httpTimeoutMs: 5000, wsTimeoutMs: 7000 },
  );
  t.throws(() => parseNodeOptions(['--Xhttp-timeout-seconds', '0']), { message: /Invalid value for option '--Xhttp-timeout-seconds': '0'/ });
  t.throws(() => parseNodeOptions(['--rpc-gas-cap', '-1']), { message: /--rpc-gas-cap/ });
  t.throws(() => parseNodeOptions(['--rpc-max-trace-filter-range=-3']), { message: /Invalid value for option '--rpc-max-trace-filter-range'/ });
});

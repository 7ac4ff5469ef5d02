/**
 * `network`: a node that refuses to start stops its siblings and is named in one line (a usage
 * error, exit 2) with its own reason; a port the user chose that is taken is named before any node
 * starts (cli/network-ports.ts); `--p2p-base-port` places node i's P2P port at P + i.
 */
import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNetwork, startProcessNetwork } from '../cli/network-command.ts';
import { UsageError } from '../node/cli/usage-error.ts';

const dataPath = () => mkdtempSync(join(tmpdir(), 'qbft-lab-refusal-'));

test('a node refusing its options: one line naming the node and its own reason, no stack trace', async (t) => {
  t.timeout(120_000);
  const err = await t.throwsAsync(startProcessNetwork({ validators: '2', 'data-path': dataPath(), 'base-port': '0' }, Date.now(), ['--rpc-http-max-batch-size', 'many']));
  t.true(err instanceof UsageError);
  t.regex(err!.message, /^network: v0 refused to start: .*--rpc-http-max-batch-size/);
  t.false(err!.message.includes('\n'), err!.message);
});

test('--p2p-base-port: a P2P port already taken is named in one line before any node starts', async (t) => {
  t.timeout(120_000);
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const taken = (blocker.address() as AddressInfo).port;
  try {
    // v0 gets taken - 1 (free), v1 gets taken.
    const err = await t.throwsAsync(startProcessNetwork({ validators: '2', 'data-path': dataPath(), 'base-port': '0', 'p2p-base-port': String(taken - 1) }, Date.now()));
    t.true(err instanceof UsageError);
    t.is(err!.message, `network: --p2p-base-port ${taken - 1}: port ${taken} (v1 P2P (RLPx)) is in use by another program; choose another --p2p-base-port, or leave it out to take the next free ports`);
    t.false(err!.message.includes('\n'), err!.message);
  } finally {
    blocker.close();
  }
});

test('--single-process: a JSON-RPC port already taken is named in one line', async (t) => {
  t.timeout(120_000);
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const taken = (blocker.address() as AddressInfo).port;
  try {
    const err = await t.throwsAsync(startNetwork({ validators: '1', 'data-path': dataPath(), 'base-port': String(taken), 'single-process': true }, Date.now()));
    t.true(err instanceof UsageError);
    t.regex(err!.message, new RegExp(`^network: --base-port ${taken}: port ${taken} \\(v0 JSON-RPC HTTP\\) is in use by another program`));
    t.false(err!.message.includes('\n'), err!.message);
  } finally {
    blocker.close();
  }
});

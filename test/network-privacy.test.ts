/**
 * `qbft-lab network --privacy`: every validator gets a privacy key pair of its own (made once, kept
 * in its data directory, so a restart keeps it), PRIV and EEA are served, and the validators prove
 * their keys to each other.
 */
import test from 'ava';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeNetwork, startNetwork, type NetworkFlags } from '../cli/network-command.ts';
import { parseNodeOptions } from '../node/cli/node-options.ts';
import { networkPrivacyArgs } from '../cli/network-privacy.ts';
import { rpc, untilValue } from './process-kit.ts';

test.serial('network --privacy: a key pair of its own for each validator, kept across a restart; the validators prove their keys to each other', async (t) => {
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-network-privacy-'));
  const flags: NetworkFlags = { validators: '3', 'data-path': dataPath, 'base-port': '0', privacy: true };
  const net = await startNetwork(flags, Date.now());
  let keys: string[] = [];
  try {
    keys = net.nodes.map((l) => l.node.privacy()!.config.publicKey);
    t.is(new Set(keys).size, 3, 'three different keys');
    keys.forEach((k, i) => t.is(readFileSync(join(dataPath, `v${i}`, 'privacy.pub'), 'utf8').trim(), k));
    t.regex(describeNetwork(net), new RegExp(`privacy key ${keys[0]!.replace(/[+/]/g, '\\$&')}`));
    t.regex(describeNetwork(net), /APIs ETH,NET,WEB3,QBFT,TXPOOL,PRIV,EEA;/);
    t.is(await rpc(net.httpPorts[0]!, 'priv_getPrivacyPrecompileAddress'), '0x000000000000000000000000000000000000007e');
    await untilValue('keys proven', async () =>
      net.nodes.every((l) => l.node.peers().length === 2 && l.node.peers().every((p) => l.node.privacy()!.peers.keyOf(p) !== undefined)) ? true : undefined,
    );
    const v0 = net.nodes[0]!.node;
    t.deepEqual(v0.peers().map((p) => v0.privacy()!.peers.keyOf(p)).sort(), [keys[1], keys[2]].sort());
  } finally {
    await net.close();
  }
  const again = await startNetwork(flags, Date.now());
  try {
    t.deepEqual(again.nodes.map((l) => l.node.privacy()!.config.publicKey), keys, 'the same keys after a restart');
  } finally {
    await again.close();
  }
});

test('the files network --privacy writes are what the node options read', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-network-privacy-files-'));
  const opts = parseNodeOptions(networkPrivacyArgs(join(dir, 'v0'), 0));
  t.is(opts.privacy!.publicKey, readFileSync(join(dir, 'v0', 'privacy.pub'), 'utf8').trim());
  t.is(opts.privacy!.markerSigningKey!.length, 32);
  t.deepEqual(parseNodeOptions(networkPrivacyArgs(join(dir, 'v0'), 0)).privacy, opts.privacy, 'kept, not made again');
});

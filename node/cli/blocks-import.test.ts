import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { blocksImportCommand, splitConcatenatedRlp, BlockImportError } from './blocks-import.ts';
import { UsageError } from './usage-error.ts';

const SPEC = new URL('../../test/vectors/besu-spec/chain/', import.meta.url).pathname;
const GENESIS = join(SPEC, 'testGenesis.json');

test('concatenated RLP items are split at their boundaries; a truncated item is an error', (t) => {
  const a = RLP.encode([new Uint8Array([1]), []]);
  const b = RLP.encode(new Uint8Array(60).fill(7));
  const joined = new Uint8Array([...a, ...b]);
  t.deepEqual(splitConcatenatedRlp(joined).map((x) => x.length), [a.length, b.length]);
  t.throws(() => splitConcatenatedRlp(joined.subarray(0, joined.length - 3)), { instanceOf: BlockImportError, message: /malformed RLP at byte 3 \(item 1\)/ });
});

test('blocks import refuses a file whose genesis is another chain, and a block that is not one', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-import-'));
  const lines: string[] = [];
  const out = (s: string) => lines.push(s);
  const notBlock = join(dir, 'bad.rlp');
  writeFileSync(notBlock, RLP.encode([new Uint8Array([1])]));
  t.is(await blocksImportCommand(['--genesis-file', GENESIS, '--data-path', join(dir, 'd1'), '--from', notBlock], out), 1);
  t.regex(lines.pop()!, /item 0 is not a block/);
  await t.throwsAsync(blocksImportCommand(['--genesis-file', GENESIS, '--data-path', join(dir, 'd2')], out), { instanceOf: UsageError, message: /--from/ });
  await t.throwsAsync(blocksImportCommand(['--genesis-file', GENESIS, '--data-path', join(dir, 'd3'), '--from', join(dir, 'missing')], out), { instanceOf: UsageError });
  await t.throwsAsync(blocksImportCommand(['--genesis-file', GENESIS, '--data-path', join(dir, 'd4'), '--from', notBlock, '--format', 'JSON'], out), { instanceOf: UsageError, message: /not supported/ });
});

test('blocks import of the spec chain reaches block 34, and a second import finds every block known', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-import-'));
  const args = ['--genesis-file', GENESIS, '--data-path', dir, '--from', join(SPEC, 'testBlockchain.blocks')];
  const lines: string[] = [];
  t.is(await blocksImportCommand(args, (s) => lines.push(s)), 0);
  t.regex(lines[0], /imported 34 blocks \(1 already known\); head 34 0x4859ea10/);
  t.is(await blocksImportCommand(args, (s) => lines.push(s)), 0);
  t.regex(lines[1], /imported 0 blocks \(35 already known\); head 34/);
});

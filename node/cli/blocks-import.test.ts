import test from 'ava';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes } from '../crypto/bytes.ts';
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

// ethereum/execution-apis tests/chain.rlp: a hive chain from Frontier through the merge, Shanghai
// (block 39), Cancun (42), Prague (45, with EIP-7002/7251 requests), Osaka (48), bpo1 (51), bpo2 (54).
const HIVE = new URL('../../test/vectors/execution-apis/', import.meta.url).pathname;
const hiveHead = (JSON.parse(readFileSync(join(HIVE, 'headfcu.json'), 'utf8')) as { params: [{ headBlockHash: string }] }).params[0].headBlockHash;

test('blocks import of a public chain crossing Shanghai, Cancun, Prague, Osaka, bpo1 and bpo2 reaches its head with every root checked', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-import-'));
  const lines: string[] = [];
  const code = await blocksImportCommand(['--genesis-file', join(HIVE, 'genesis.json'), '--data-path', dir, '--from', join(HIVE, 'chain.rlp')], (s) => lines.push(s));
  t.is(code, 0, lines.join('\n'));
  t.regex(lines[0], new RegExp(`imported 54 blocks \\(0 already known\\); head 54 ${hiveHead}`));
});

test('a block of that chain with another excessBlobGas (Cancun, bpo2) or requestsHash (with requests or without) is refused', async (t) => {
  const blocks = splitConcatenatedRlp(new Uint8Array(readFileSync(join(HIVE, 'chain.rlp'))));
  const REQUESTS_HASH = 20;
  const EXCESS_BLOB_GAS = 18;
  const bump = (h: Uint8Array[], i: number) => {
    const next = (h[i].length === 0 ? 0n : BigInt(bytesToHex(h[i]))) + 1n;
    h[i] = hexToBytes(`0x${next.toString(16).padStart(2 * Math.ceil(next.toString(16).length / 2), '0')}`);
  };
  for (const [label, number, mend, reason] of [
    ['excessBlobGas of block 43 (Cancun)', 43, (h: Uint8Array[]) => bump(h, EXCESS_BLOB_GAS), /excessBlobGas \d+, expected/],
    ['excessBlobGas of block 54 (bpo2)', 54, (h: Uint8Array[]) => bump(h, EXCESS_BLOB_GAS), /excessBlobGas \d+, expected/],
    ['requestsHash of block 45 (it has requests)', 45, (h: Uint8Array[]) => (h[REQUESTS_HASH] = new Uint8Array(32).fill(1)), /INVALID_REQUESTS_HASH/],
    ['requestsHash of block 46 (no requests)', 46, (h: Uint8Array[]) => (h[REQUESTS_HASH] = new Uint8Array(32).fill(1)), /INVALID_REQUESTS_HASH/],
  ] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'qbft-lab-import-'));
    const decoded = RLP.decode(blocks[number - 1]) as unknown as [Uint8Array[], ...unknown[]];
    mend(decoded[0]);
    const file = join(dir, 'chain.rlp');
    writeFileSync(file, Buffer.concat([...blocks.slice(0, number - 1), RLP.encode(decoded as never)]));
    const lines: string[] = [];
    t.is(await blocksImportCommand(['--genesis-file', join(HIVE, 'genesis.json'), '--data-path', join(dir, 'data'), '--from', file], (s) => lines.push(s)), 1, label);
    t.regex(lines.join('\n'), reason, label);
    t.regex(lines.join('\n'), new RegExp(`block ${number}`), label);
  }
});

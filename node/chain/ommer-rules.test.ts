/**
 * Ommers in QBFT blocks, judged as Besu's generic body validation does, through the node's own
 * proposal validation and block import: a QBFT chain is built, then blocks carrying ommers are
 * offered at the next height.
 */
import test from 'ava';
import type { Block, BlockHeader } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex } from '../crypto/bytes.ts';
import { sign } from '../crypto/secp256k1.ts';
import type { QbftNode } from '../node.ts';
import { blockFromValues, committedSealHash, extraDataOf, onchainBlockHash, withExtraData } from './block-hashing.ts';
import { checkOmmers, ommersHash } from './ommer-rules.ts';
import { buildSimGenesis } from '../../sim/genesis-builder.ts';
import { validatorKeys, type NodeKey } from '../../sim/keys.ts';
import { SIM_START_TIME_MS, World } from '../../sim/world.ts';

/** The node's block producer and proposal validation (its private parts). */
interface NodeInternals {
  producer: { createBlock(req: { height: number; round: number; timestampSeconds: number }): Promise<{ block: Block }> };
  proposals: { validateProposedBlock(rlp: Uint8Array, height: number): Promise<unknown> };
}

const UNCLE_HASH_INDEX = 1;

/** Commit seals of the first three validators (a quorum of four) over the header at its round. */
function sealed(block: Block, keys: NodeKey[], node: QbftNode, vanityByte?: number): Block {
  const extra = extraDataOf(block.header);
  const vanity = vanityByte === undefined ? extra.vanity : new Uint8Array(32).fill(vanityByte);
  const unsealed = withExtraData(block, { ...extra, vanity, seals: [] }, node.common);
  const hash = committedSealHash(unsealed.header, extra.round);
  return withExtraData(unsealed, { ...extra, vanity, seals: keys.slice(0, 3).map((k) => sign(hash, k.privateKey)) }, node.common);
}

/** `base` with these ommers in its body; its header's ommers hash is the body's unless `headerOmmers` says otherwise. */
function withOmmers(base: Block, ommers: BlockHeader[], node: QbftNode, headerOmmers: BlockHeader[] = ommers): Block {
  const [header, transactions] = base.raw();
  const h = [...(header as Uint8Array[])];
  h[UNCLE_HASH_INDEX] = ommersHash(headerOmmers);
  return blockFromValues([h, transactions, ommers.map((o) => o.raw())], node.common);
}

test('a QBFT block with ommers is rejected unless each is a distinct sealed sibling of a recent ancestor, at most two, matching the ommers hash', async (t) => {
  const keys = validatorKeys(4);
  const genesis = buildSimGenesis({ validators: keys.map((k) => k.address), startTimeSeconds: SIM_START_TIME_MS / 1000, blockPeriodSeconds: 1 });
  const world = new World({ seed: 5, genesis, nodes: keys.map((key, i) => ({ name: `v${i}`, key })) });
  await world.startAll();
  await world.runFor(9_500);
  for (const name of ['v1', 'v2', 'v3']) world.crash(name);
  const node = world.get('v0').node!;
  const internals = (node as unknown as { parts: NodeInternals }).parts;
  const head = node.head();
  const height = head.number + 1;
  t.true(height >= 9, `height ${height}`);
  const canonical = (n: number) => node.blockAt(n)!.block;
  const siblingOf = (n: number, vanityByte: number) => sealed(canonical(n), keys, node, vanityByte).header;
  const base = (await internals.producer.createBlock({ height, round: 0, timestampSeconds: head.timestamp + 1 })).block;
  t.is(base.uncleHeaders.length, 0, 'a proposer builds no ommers');

  const oldest = siblingOf(height - 6, 0x61);
  const recent = siblingOf(height - 2, 0x62);
  const verdicts = async (block: Block) => ({
    proposal: (await internals.proposals.validateProposedBlock(block.serialize(), height)) !== undefined,
    import: await node.importBlock(sealed(block, keys, node)),
  });
  const rejected = async (label: string, block: Block, reason: RegExp) => {
    const v = await verdicts(block);
    t.false(v.proposal, `${label}: proposal accepted`);
    t.false(v.import.ok, `${label}: import accepted`);
    if (!v.import.ok) t.regex(v.import.reason, reason, label);
  };

  await rejected('ommers hash of no ommers, an ommer in the body', withOmmers(base, [recent], node, []), /^ommers hash .* does not match the body/);
  // More than two ommers, or one twice, do not even decode (the block library refuses them as Besu's rules do).
  const rawWith = (ommers: BlockHeader[]) => {
    const [header, transactions] = base.raw();
    const h = [...(header as Uint8Array[])];
    h[UNCLE_HASH_INDEX] = ommersHash(ommers);
    return RLP.encode([h, transactions, ommers.map((o) => o.raw())] as never);
  };
  t.is(await internals.proposals.validateProposedBlock(rawWith([oldest, recent, siblingOf(height - 3, 0x63)]), height), undefined, 'three ommers');
  t.is(await internals.proposals.validateProposedBlock(rawWith([recent, recent]), height), undefined, 'the same ommer twice');
  const resealed = withExtraData(blockFromValues([recent.raw(), [], []], node.common), { ...extraDataOf(recent), seals: [] }, node.common).header;
  await rejected('the same header with other seals', withOmmers(base, [recent, resealed], node), /^ommers are not unique$/);
  await rejected('an unsealed sibling', withOmmers(base, [resealed], node), /^ommer 0x[0-9a-f]+ is invalid: commitSeals: only 0 seals/);
  await rejected('a sibling of an ancestor 7 generations back', withOmmers(base, [siblingOf(height - 7, 0x64)], node), /is not a sibling of an ancestor within 6 generations$/);
  await rejected('an ancestor itself', withOmmers(base, [canonical(height - 2).header], node), /is not a sibling of an ancestor within 6 generations$/);
  const orphanFields = [...oldest.raw()];
  orphanFields[0] = new Uint8Array(32).fill(0xab); // a parent hash no node knows
  const orphan = blockFromValues([orphanFields, [], []], node.common).header;
  await rejected('an ommer whose parent is unknown', withOmmers(base, [orphan], node), /is invalid: parent 0x[0-9a-f]+ unknown$/);
  t.is(node.head().hash, head.hash);

  // Two sealed siblings of ancestors 6 and 2 generations back: Besu's body rules accept them.
  const valid = withOmmers(base, [oldest, recent], node);
  const v = await verdicts(valid);
  t.true(v.proposal, 'proposal with valid ommers rejected');
  t.deepEqual(v.import, { ok: true, status: 'head' });
  t.is(node.head().number, height);
  t.is(node.head().hash, bytesToHex(onchainBlockHash(sealed(valid, keys, node).header)));
});


// The rules alone, on stand-in headers: a chain 0..10 (block n's hash h(n)), and siblings s(n) of block n.
const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;
const s = (n: number, k = 0) => `0x${(0x5000 + n * 16 + k).toString(16).padStart(64, '0')}` as const;
interface FakeHeader { id: `0x${string}`; number: bigint; parentHash: Uint8Array; uncleHash: Uint8Array; raw(): Uint8Array[] }
const fake = (id: `0x${string}`, number: number, parent: `0x${string}`, ommers: FakeHeader[] = []): FakeHeader => ({
  id, number: BigInt(number), parentHash: Buffer.from(parent.slice(2), 'hex'), uncleHash: ommersHash(ommers as never), raw: () => [Buffer.from(id.slice(2), 'hex')],
});
const chainEntries = new Map(Array.from({ length: 11 }, (_, n) => [h(n), { hash: h(n), number: n, parentHash: n === 0 ? h(0xffff) : h(n - 1) }]));
const ctxWith = (checked: string[] = [], badHeaders: string[] = []) => ({
  hashOf: (header: BlockHeader) => (header as unknown as FakeHeader).id,
  get: (hash: `0x${string}`) => chainEntries.get(hash),
  checkOmmerHeader: async (ommer: BlockHeader) => {
    const id = (ommer as unknown as FakeHeader).id;
    checked.push(id);
    return badHeaders.includes(id) ? 'commitSeals: only 0 seals' : undefined;
  },
});
const blockAt11 = (ommers: FakeHeader[], headerOmmers = ommers) => ({ header: { ...fake(h(11), 11, h(10), headerOmmers) }, uncleHeaders: ommers }) as unknown as Block;
const sibling = (n: number, k = 0) => fake(s(n, k), n, h(n - 1));

test('checkOmmers: hash first, then count, uniqueness, each ommer\'s header rules, then kinship within 6 generations', async (t) => {
  t.is(await checkOmmers(blockAt11([]), ctxWith()), undefined);
  t.is(await checkOmmers(blockAt11([sibling(5), sibling(10)]), ctxWith()), undefined, 'siblings of ancestors 6 and 1 generations back');
  t.regex((await checkOmmers(blockAt11([sibling(5)], []), ctxWith()))!, /^ommers hash/);
  t.regex((await checkOmmers(blockAt11([sibling(5), sibling(6), sibling(7)]), ctxWith()))!, /^3 ommers, at most 2$/);
  t.regex((await checkOmmers(blockAt11([sibling(6), sibling(6)]), ctxWith()))!, /^ommers are not unique$/);
  const checked: string[] = [];
  t.regex((await checkOmmers(blockAt11([sibling(6), sibling(7)]), ctxWith(checked, [s(7)])))!, /is invalid: commitSeals/);
  t.deepEqual(checked, [s(6), s(7)]);
  t.regex((await checkOmmers(blockAt11([sibling(4)]), ctxWith()))!, /not a sibling of an ancestor within 6 generations$/, 'sibling of block 4: 7 generations back');
  t.regex((await checkOmmers(blockAt11([fake(h(9), 9, h(8))]), ctxWith()))!, /not a sibling/, 'an ancestor is not its own sibling');
  t.regex((await checkOmmers(blockAt11([fake(s(12), 8, h(0xabc))]), ctxWith()))!, /parent 0x0+abc unknown$/);
  t.regex((await checkOmmers(blockAt11([fake(s(13), 11, h(10))]), ctxWith()))!, /not a sibling/, 'a sibling of the block itself');
});

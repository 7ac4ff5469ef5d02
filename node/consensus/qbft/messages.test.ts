import test from 'ava';
import { readFileSync } from 'node:fs';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, concatBytes, hexToBytes, intToBytes, type Hex } from '../../crypto/bytes.ts';
import { keccak256 } from '../../crypto/keccak.ts';
import { privateKeyToAddress, recoverAddress, sign } from '../../crypto/secp256k1.ts';
import {
  decodeMessage,
  encodeMessage,
  MessageCode,
  messageCode,
  roundIdOf,
  signPayload,
  type Payload,
  type PreparePayload,
  type ProposalPayload,
  type QbftMessage,
  type Signed,
  type WireLayout,
} from './messages.ts';

const vectors = JSON.parse(readFileSync(new URL('../../../test/vectors/qbft-tests/messages.json', import.meta.url), 'utf8'));
const CODES: Record<string, number> = { prepare: 0x13, commit: 0x14, roundChange: 0x15, proposal: 0x12 };
const KEY = hexToBytes('0x' + '11'.repeat(32));
const KEY2 = hexToBytes('0x' + '22'.repeat(32));
const DIGEST = hexToBytes('0x' + 'ab'.repeat(32));
const SECP_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const hex = (b: Uint8Array | undefined) => (b === undefined ? null : bytesToHex(b));

function checkPrepare(t: any, signed: Signed<PreparePayload>, v: any) {
  t.is(signed.payload.sequence, v.unsignedPrepare.sequence);
  t.is(signed.payload.round, v.unsignedPrepare.round);
  t.is(hex(signed.payload.digest), v.unsignedPrepare.digest);
  t.is(hex(signed.signature), v.signature);
}

function checkRoundChange(t: any, signed: Signed<Payload>, v: any) {
  const p = signed.payload;
  if (p.kind !== 'roundChange') return t.fail('not a round change');
  t.is(p.sequence, v.unsignedRoundChange.sequence);
  t.is(p.round, v.unsignedRoundChange.round);
  t.is(p.prepared?.preparedRound ?? null, v.unsignedRoundChange.preparedRound);
  t.is(hex(p.prepared?.preparedBlockHash), v.unsignedRoundChange.preparedValue);
  t.is(hex(signed.signature), v.signature);
}

function checkVector(t: any, m: QbftMessage, v: any) {
  switch (m.kind) {
    case 'prepare':
      return checkPrepare(t, m.signed, v);
    case 'commit': {
      const p = m.signed.payload;
      t.is(p.sequence, v.unsignedCommit.sequence);
      t.is(p.round, v.unsignedCommit.round);
      t.is(hex(p.digest), v.unsignedCommit.digest);
      t.is(hex(p.commitSeal), v.unsignedCommit.commitSeal);
      t.is(hex(m.signed.signature), v.signature);
      return;
    }
    case 'roundChange':
      checkRoundChange(t, m.signed, v.signedRoundChange);
      t.is(hex(m.preparedBlockRlp), v.block);
      t.is(m.prepares.length, v.prepares.length);
      m.prepares.forEach((p, i) => checkPrepare(t, p, v.prepares[i]));
      return;
    case 'proposal': {
      const p = m.signed.payload;
      t.is(p.sequence, v.signedProposal.unsignedProposal.sequence);
      t.is(p.round, v.signedProposal.unsignedProposal.round);
      t.is(hex(p.blockRlp), v.signedProposal.unsignedProposal.block);
      t.is(p.blockAccessList, undefined);
      t.is(hex(m.signed.signature), v.signedProposal.signature);
      t.is(m.roundChanges.length, v.roundChanges.length);
      m.roundChanges.forEach((rc, i) => checkRoundChange(t, rc, v.roundChanges[i]));
      t.is(m.prepares.length, v.prepares.length);
      m.prepares.forEach((pr, i) => checkPrepare(t, pr, v.prepares[i]));
    }
  }
}

/** Everything but the raw `encoded` bytes, for comparing messages across layouts. */
function view(m: QbftMessage): unknown {
  const s = (x: Signed<Payload>) => JSON.stringify({ ...x, encoded: undefined }, (_k, v) => (v instanceof Uint8Array ? bytesToHex(v) : v));
  const base = { kind: m.kind, signed: s(m.signed) };
  if (m.kind === 'roundChange') return { ...base, block: hex(m.preparedBlockRlp), prepares: m.prepares.map(s) };
  if (m.kind === 'proposal') return { ...base, rcs: m.roundChanges.map(s), prepares: m.prepares.map(s) };
  return base;
}

for (const [name, vector] of Object.entries<any>(vectors)) {
  test(`vector ${name}: decodes, fields match, re-encodes byte for byte as legacy`, (t) => {
    const code = CODES[vector.message.type];
    const m = decodeMessage(code, hexToBytes(vector.rlp));
    t.is(m.kind, vector.message.type);
    t.is(messageCode(m), code);
    checkVector(t, m, vector.message);
    t.is(bytesToHex(encodeMessage(m, 'legacy')), vector.rlp);
  });

  test(`vector ${name}: besu26 encoding decodes to the same message`, (t) => {
    const m = decodeMessage(CODES[vector.message.type], hexToBytes(vector.rlp));
    const again = decodeMessage(messageCode(m), encodeMessage(m, 'besu26'));
    t.deepEqual(view(again), view(m));
    t.deepEqual(encodeMessage(again, 'legacy'), hexToBytes(vector.rlp));
  });
}

test('vector authors: the same signed prepare recovers to the same author everywhere', (t) => {
  const prepare = decodeMessage(0x13, hexToBytes(vectors.prepare.rlp));
  const rc = decodeMessage(0x15, hexToBytes(vectors.roundChange_with_prepares.rlp));
  const proposal = decodeMessage(0x12, hexToBytes(vectors.proposal_with_prepares_and_roundChanges.rlp));
  if (rc.kind !== 'roundChange' || proposal.kind !== 'proposal') return t.fail();
  t.is(prepare.signed.author, '0xfd8fcfbe985499a465699f51671a0f78f39ef47f');
  t.is(rc.prepares[0].author, prepare.signed.author);
  t.is(proposal.prepares[0].author, prepare.signed.author);
  t.is(proposal.roundChanges[0].author, rc.signed.author);
  t.regex(proposal.signed.author, /^0x[0-9a-f]{40}$/);
});

test('a round change in besu26 layout carries 0x80 before the prepares', (t) => {
  const m = decodeMessage(0x15, hexToBytes(vectors.roundChange_empty_prepares.rlp));
  const items = RLP.decode(encodeMessage(m, 'besu26')) as unknown[];
  t.is(items.length, 4);
  t.deepEqual(items[2], new Uint8Array(0));
  t.deepEqual(items[3], []);
});

function recoverIndependently(code: number, signed: Signed<Payload>): Hex {
  const [payloadList, signature] = RLP.decode(signed.encoded) as [Uint8Array[], Uint8Array];
  return recoverAddress(keccak256(RLP.encode([intToBytes(code), payloadList])), signature);
}

const samples: Payload[] = [
  { kind: 'prepare', sequence: 7, round: 2, digest: DIGEST },
  { kind: 'commit', sequence: 7, round: 2, digest: DIGEST, commitSeal: sign(DIGEST, KEY2) },
  { kind: 'roundChange', sequence: 7, round: 3 },
  { kind: 'roundChange', sequence: 2 ** 40, round: 0x7fffffff, prepared: { preparedRound: 2, preparedBlockHash: DIGEST } },
  { kind: 'proposal', sequence: 7, round: 0, blockRlp: hexToBytes(vectors.proposal_with_prepares_and_roundChanges.message.signedProposal.unsignedProposal.block) },
];

for (const layout of ['besu26', 'legacy'] as WireLayout[]) {
  test(`signPayload (${layout}) round-trips through decode with the signer as author`, (t) => {
    const author = privateKeyToAddress(KEY);
    for (const payload of samples) {
      const signed = signPayload(payload, KEY, layout);
      t.is(signed.author, author);
      const code = messageCode({ kind: payload.kind, signed } as QbftMessage);
      t.is(recoverIndependently(code, signed), author);
      const message = { kind: payload.kind, signed, roundChanges: [], prepares: [] } as unknown as QbftMessage;
      const decoded = decodeMessage(code, encodeMessage(message, layout));
      t.is(decoded.signed.author, author);
      t.deepEqual(view(decoded), view(message));
      t.deepEqual(roundIdOf(decoded), { sequence: payload.sequence, round: payload.round });
    }
  });
}

test('a besu26 proposal payload has a 4th item, 0x80 or the block access list', (t) => {
  const proposal = samples[4] as ProposalPayload;
  const [payloadList] = RLP.decode(signPayload(proposal, KEY, 'besu26').encoded) as [unknown[]];
  t.is(payloadList.length, 4);
  t.deepEqual(payloadList[3], new Uint8Array(0));
  t.is((RLP.decode(signPayload(proposal, KEY, 'legacy').encoded) as [unknown[]])[0].length, 3);

  const bal = RLP.encode([[hexToBytes('0x' + '01'.repeat(20))]]);
  const signed = signPayload({ ...proposal, blockAccessList: bal }, KEY, 'besu26');
  const decoded = decodeMessage(0x12, encodeMessage({ kind: 'proposal', signed, roundChanges: [], prepares: [] }));
  if (decoded.kind !== 'proposal') return t.fail();
  t.deepEqual(decoded.signed.payload.blockAccessList, bal);
});

test('proposals and round changes carry piggy-backed messages with their own authors', (t) => {
  const prepare = signPayload({ kind: 'prepare', sequence: 7, round: 1, digest: DIGEST }, KEY2);
  const rc = signPayload({ kind: 'roundChange', sequence: 7, round: 2, prepared: { preparedRound: 1, preparedBlockHash: DIGEST } }, KEY2);
  const block = samples[4].kind === 'proposal' ? samples[4].blockRlp : new Uint8Array();
  const roundChange = decodeMessage(0x15, encodeMessage({ kind: 'roundChange', signed: rc, preparedBlockRlp: block, prepares: [prepare] }));
  if (roundChange.kind !== 'roundChange') return t.fail();
  t.deepEqual(roundChange.preparedBlockRlp, block);
  t.is(roundChange.prepares[0].author, privateKeyToAddress(KEY2));
  const proposal = signPayload({ kind: 'proposal', sequence: 7, round: 2, blockRlp: block }, KEY);
  const decoded = decodeMessage(0x12, encodeMessage({ kind: 'proposal', signed: proposal, roundChanges: [rc, rc], prepares: [prepare] }));
  if (decoded.kind !== 'proposal') return t.fail();
  t.is(decoded.signed.author, privateKeyToAddress(KEY));
  t.deepEqual(decoded.roundChanges.map((r) => r.author), [privateKeyToAddress(KEY2), privateKeyToAddress(KEY2)]);
});

// --- malformed input -------------------------------------------------------------------------

/** SignedData over an arbitrary payload list, signed properly, to reach the payload checks. */
function signedRaw(code: number, payloadList: unknown[], key = KEY): Uint8Array {
  const hash = keccak256(RLP.encode([intToBytes(code), payloadList as Uint8Array[]]));
  return RLP.encode([payloadList as Uint8Array[], sign(hash, key)]);
}

const prepareVector = () => hexToBytes(vectors.prepare.rlp);

test('tampered signatures are rejected or change the author', (t) => {
  const original = decodeMessage(0x13, prepareVector()).signed.author;
  const flipped = prepareVector();
  flipped[flipped.length - 40] ^= 1; // inside s
  let author: string | undefined;
  try {
    author = decodeMessage(0x13, flipped).signed.author;
  } catch {
    author = undefined;
  }
  t.not(author, original);

  const badRecId = prepareVector();
  badRecId[badRecId.length - 1] = 2;
  t.throws(() => decodeMessage(0x13, badRecId), { message: /recovery id/ });
});

test('a high-s signature is rejected', (t) => {
  const bytes = prepareVector();
  const sigStart = bytes.length - 65;
  const s = BigInt(bytesToHex(bytes.subarray(sigStart + 32, sigStart + 64)));
  const highS = hexToBytes('0x' + (SECP_N - s).toString(16).padStart(64, '0'));
  bytes.set(highS, sigStart + 32);
  bytes[bytes.length - 1] ^= 1;
  t.throws(() => decodeMessage(0x13, bytes), { message: /lower half/ });
});

test('garbage, wrong codes and wrong shapes are rejected', (t) => {
  t.throws(() => decodeMessage(0x13, new Uint8Array()), { message: /RLP list/ });
  t.throws(() => decodeMessage(0x13, hexToBytes('0xdeadbeef')), { message: /invalid RLP/ });
  t.throws(() => decodeMessage(0x13, concatBytes(prepareVector(), Uint8Array.of(0))), { message: /invalid RLP/ });
  t.throws(() => decodeMessage(0x11, prepareVector()), { message: /unknown QBFT message code/ });
  t.throws(() => decodeMessage(0x14, prepareVector()), { message: /commit payload must have 4 items/ });
  t.throws(() => decodeMessage(0x12, prepareVector()), { message: /signed data must have 2 items/ });
  t.throws(() => decodeMessage(0x15, prepareVector()), { message: /round change must have 3 or 4 items/ });
  t.throws(() => decodeMessage(0x13, RLP.encode([[1, 0, DIGEST]])), { message: /2 items/ });
  t.throws(() => decodeMessage(0x13, RLP.encode([[1, 0, DIGEST], new Uint8Array(64)])), { message: /65 bytes/ });
  t.throws(() => decodeMessage(0x13, signedRaw(0x13, [1, 0, DIGEST.subarray(1)])), { message: /digest must be 32 bytes/ });
  t.throws(() => decodeMessage(0x13, signedRaw(0x13, [1, 0, DIGEST, 1])), { message: /3 items/ });
  t.throws(() => decodeMessage(0x13, signedRaw(0x13, [[1], 0, DIGEST])), { message: /sequence must be a byte string/ });
  const rcWithBadPrepared = RLP.encode([RLP.decode(signedRaw(0x15, [1, 1, 0])) as never, [], []]);
  t.throws(() => decodeMessage(0x15, rcWithBadPrepared), { message: /prepared round metadata must be a list/ });
  const proposalWithStringBlock = RLP.encode([RLP.decode(signedRaw(0x12, [1, 0, DIGEST])) as never, [[], []]]);
  t.throws(() => decodeMessage(0x12, proposalWithStringBlock), { message: /proposed block must be an RLP list/ });
});

test('oversized or non-minimal numbers are rejected', (t) => {
  const prepare = (seq: Uint8Array, round: Uint8Array) => signedRaw(0x13, [seq, round, DIGEST]);
  t.notThrows(() => decodeMessage(0x13, prepare(intToBytes(Number.MAX_SAFE_INTEGER), intToBytes(0x7fffffff))));
  t.throws(() => decodeMessage(0x13, prepare(intToBytes(2n ** 53n), new Uint8Array())), { message: /sequence out of range/ });
  t.throws(() => decodeMessage(0x13, prepare(hexToBytes('0x010000000000000000'), new Uint8Array())), { message: /8 bytes/ });
  t.throws(() => decodeMessage(0x13, prepare(intToBytes(1), intToBytes(0x80000000))), { message: /round out of range/ });
  t.throws(() => decodeMessage(0x13, prepare(intToBytes(1), hexToBytes('0x0100000000'))), { message: /4 bytes/ });
  t.throws(() => decodeMessage(0x13, prepare(hexToBytes('0x0001'), new Uint8Array())), { message: /leading zero/ });
  t.throws(() => decodeMessage(0x13, prepare(intToBytes(1), hexToBytes('0x0001'))), { message: /leading zero/ });
  t.throws(() => signPayload({ kind: 'prepare', sequence: 1, round: 2 ** 31, digest: DIGEST }, KEY), { message: /invalid round/ });
  t.throws(() => signPayload({ kind: 'prepare', sequence: -1, round: 0, digest: DIGEST }, KEY), { message: /invalid sequence/ });
});

test('more than 1000 piggy-backed messages are rejected', (t) => {
  const prepare = signPayload({ kind: 'prepare', sequence: 7, round: 1, digest: DIGEST }, KEY2);
  const rc = signPayload({ kind: 'roundChange', sequence: 7, round: 1 }, KEY2);
  const proposal = signPayload(samples[4] as Payload, KEY);
  const ok = encodeMessage({ kind: 'proposal', signed: proposal as never, roundChanges: [], prepares: Array(1000).fill(prepare) });
  t.is(decodeMessage(0x12, ok).kind, 'proposal');
  const tooManyPrepares = encodeMessage({ kind: 'proposal', signed: proposal as never, roundChanges: [], prepares: Array(1001).fill(prepare) });
  t.throws(() => decodeMessage(0x12, tooManyPrepares), { message: /too many prepares/ });
  const tooManyRcs = encodeMessage({ kind: 'proposal', signed: proposal as never, roundChanges: Array(1001).fill(rc), prepares: [] });
  t.throws(() => decodeMessage(0x12, tooManyRcs), { message: /too many round changes/ });
  const rcMessage = encodeMessage({ kind: 'roundChange', signed: rc, prepares: Array(1001).fill(prepare) });
  t.throws(() => decodeMessage(0x15, rcMessage), { message: /too many prepares/ });
});

test('decoded messages do not alias the caller buffer', (t) => {
  const bytes = prepareVector();
  const m = decodeMessage(0x13, bytes);
  bytes.fill(0);
  t.is(hex(m.signed.payload.kind === 'prepare' ? m.signed.payload.digest : undefined), vectors.prepare.message.unsignedPrepare.digest);
});

test('MessageCode values', (t) => {
  t.deepEqual(MessageCode, { PROPOSAL: 0x12, PREPARE: 0x13, COMMIT: 0x14, ROUND_CHANGE: 0x15 });
});

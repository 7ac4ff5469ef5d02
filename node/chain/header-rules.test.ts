import test from 'ava';
import type { Hex } from '../crypto/bytes.ts';
import { EXPECTED_MIX_HASH, HEADER_RULES, validateHeader, type HeaderCheck, type HeaderContext, type HeaderFacts } from './header-rules.ts';

const addr = (n: number): Hex => `0x${n.toString(16).padStart(40, '0')}`;
const hash = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`;
const VALIDATORS = [1, 2, 3, 4].map(addr);

/** Fake seals: byte 0 = signer index, byte 1 = round signed; 0xff in byte 0 = unrecoverable. */
const seal = (signer: number, round = 0) => Uint8Array.from([signer, round]);

const parent: HeaderFacts = {
  number: 9, parentHash: hash(8), hash: hash(9), timestamp: 1000, gasLimit: 30_000_000n, gasUsed: 0n,
  mixHash: EXPECTED_MIX_HASH, difficulty: 1n, coinbase: addr(1), extraValidators: VALIDATORS, round: 0, seals: [],
};

const header = (over: Partial<HeaderFacts> = {}): HeaderFacts => ({
  number: 10, parentHash: hash(9), hash: hash(10), timestamp: 1005, gasLimit: 30_000_000n, gasUsed: 21_000n,
  mixHash: EXPECTED_MIX_HASH, difficulty: 1n, coinbase: addr(2), extraValidators: [...VALIDATORS], round: 2,
  seals: [seal(1, 2), seal(2, 2), seal(3, 2)], ...over,
});

const ctx = (over: Partial<HeaderContext> = {}): HeaderContext => ({
  parent, validatorsAfterParent: [...VALIDATORS], contractMode: false, blockPeriodSeconds: 5, nowSeconds: 1005,
  committedSealHash: (round) => Uint8Array.from([round]),
  recoverSealer: (h, s) => {
    if (s[0] === 0xff) throw new Error('bad signature');
    return s[1] === h[0] ? addr(s[0]) : addr(0x500 + s[0]); // signed another round: some other key
  },
  checkSeals: true, ...over,
});

const failsWith = (t: { is: (a: unknown, b: unknown, m?: string) => void }, r: HeaderCheck, rule: string) => {
  t.is(r.ok ? 'ok' : r.rule, rule, r.ok ? '' : r.reason);
};

test('a valid header passes', (t) => {
  t.deepEqual(validateHeader(header(), ctx()), { ok: true });
});

test('rules run in Besu order', (t) => {
  t.deepEqual(HEADER_RULES.map(([n]) => n), ['ancestry', 'gasUsage', 'gasLimit', 'baseFee', 'timestampFuture', 'mixHash', 'difficulty', 'validators', 'coinbase', 'commitSeals', 'timestampParent']);
  // several broken fields: the first rule in order is reported
  failsWith(t, validateHeader(header({ difficulty: 2n, mixHash: hash(1), gasUsed: 10n ** 9n }), ctx()), 'gasUsage');
});

test('ancestry: parent hash and number', (t) => {
  failsWith(t, validateHeader(header({ parentHash: hash(7) }), ctx()), 'ancestry');
  failsWith(t, validateHeader(header({ number: 11 }), ctx()), 'ancestry');
});

test('gas used ≤ gas limit', (t) => {
  failsWith(t, validateHeader(header({ gasUsed: 30_000_001n }), ctx()), 'gasUsage');
  t.true(validateHeader(header({ gasUsed: 30_000_000n }), ctx()).ok);
});

test('gas limit: range 5000..2^63-1 and delta strictly below parent/1024', (t) => {
  const bound = 30_000_000n / 1024n; // 29296
  t.true(validateHeader(header({ gasLimit: 30_000_000n + bound - 1n }), ctx()).ok);
  t.true(validateHeader(header({ gasLimit: 30_000_000n - bound + 1n }), ctx()).ok);
  failsWith(t, validateHeader(header({ gasLimit: 30_000_000n + bound }), ctx()), 'gasLimit');
  failsWith(t, validateHeader(header({ gasLimit: 30_000_000n - bound, gasUsed: 0n }), ctx()), 'gasLimit');
  const small = { ...parent, gasLimit: 5000n };
  failsWith(t, validateHeader(header({ gasLimit: 4999n, gasUsed: 0n }), ctx({ parent: small })), 'gasLimit');
  const huge = { ...parent, gasLimit: (1n << 63n) - 1n };
  failsWith(t, validateHeader(header({ gasLimit: 1n << 63n }), ctx({ parent: huge })), 'gasLimit');
});

test('gas limit at the London block is measured against parent × 2; no baseFee before London', (t) => {
  const doubled = 60_000_000n;
  t.true(validateHeader(header({ gasLimit: doubled, baseFeePerGas: 1_000_000_000n }), ctx({ londonBlock: 10 })).ok);
  failsWith(t, validateHeader(header({ gasLimit: doubled }), ctx({ londonBlock: 5 })), 'gasLimit');
  t.true(validateHeader(header({ baseFeePerGas: 7n }), ctx({ londonBlock: 5 })).ok);
  failsWith(t, validateHeader(header({ baseFeePerGas: 7n }), ctx({ londonBlock: 11 })), 'gasLimit');
});

test('baseFee must equal the expected one when given', (t) => {
  t.true(validateHeader(header({ baseFeePerGas: 7n }), ctx({ expectedBaseFee: 7n })).ok);
  failsWith(t, validateHeader(header({ baseFeePerGas: 8n }), ctx({ expectedBaseFee: 7n })), 'baseFee');
  failsWith(t, validateHeader(header(), ctx({ expectedBaseFee: 7n })), 'baseFee');
});

test('timestamp at most now + 1; skipped without a clock', (t) => {
  t.true(validateHeader(header({ timestamp: 1006 }), ctx()).ok);
  failsWith(t, validateHeader(header({ timestamp: 1007 }), ctx()), 'timestampFuture');
  t.true(validateHeader(header({ timestamp: 99_999 }), ctx({ nowSeconds: undefined })).ok);
});

test('mixHash is the BFT constant, difficulty is 1', (t) => {
  failsWith(t, validateHeader(header({ mixHash: hash(0) }), ctx()), 'mixHash');
  failsWith(t, validateHeader(header({ difficulty: 0n }), ctx()), 'difficulty');
  failsWith(t, validateHeader(header({ difficulty: 2n }), ctx()), 'difficulty');
});

test('header mode: extraData validators sorted, distinct, equal to validators after parent', (t) => {
  failsWith(t, validateHeader(header({ extraValidators: [addr(2), addr(1), addr(3), addr(4)] }), ctx()), 'validators');
  failsWith(t, validateHeader(header({ extraValidators: [addr(1), addr(2), addr(2), addr(3), addr(4)] }), ctx()), 'validators');
  failsWith(t, validateHeader(header({ extraValidators: [addr(1), addr(2), addr(3)] }), ctx()), 'validators');
  failsWith(t, validateHeader(header({ extraValidators: [addr(1), addr(2), addr(3), addr(5)] }), ctx()), 'validators');
  t.true(validateHeader(header({ vote: { recipient: addr(9), add: true } }), ctx()).ok, 'votes are allowed in header mode');
});

test('contract mode: no validators and no vote in extraData', (t) => {
  t.true(validateHeader(header({ extraValidators: [] }), ctx({ contractMode: true })).ok);
  failsWith(t, validateHeader(header(), ctx({ contractMode: true })), 'validators');
  failsWith(t, validateHeader(header({ extraValidators: [], vote: { recipient: addr(9), add: false } }), ctx({ contractMode: true })), 'validators');
});

test('coinbase must be a validator', (t) => {
  failsWith(t, validateHeader(header({ coinbase: addr(9) }), ctx()), 'coinbase');
});

test('commit seals: quorum of distinct validators over the committed-seal hash of the round', (t) => {
  t.true(validateHeader(header({ seals: [seal(4, 2), seal(1, 2), seal(3, 2), seal(2, 2)] }), ctx()).ok);
  failsWith(t, validateHeader(header({ seals: [seal(1, 2), seal(2, 2)] }), ctx()), 'commitSeals');
  failsWith(t, validateHeader(header({ seals: [seal(1, 2), seal(2, 2), seal(2, 2)] }), ctx()), 'commitSeals');
  failsWith(t, validateHeader(header({ seals: [seal(1, 2), seal(2, 2), seal(9, 2)] }), ctx()), 'commitSeals');
  failsWith(t, validateHeader(header({ seals: [seal(1, 2), seal(2, 2), seal(3, 1)] }), ctx()), 'commitSeals');
  failsWith(t, validateHeader(header({ seals: [seal(1, 2), seal(2, 2), seal(3, 2), seal(0xff, 2)] }), ctx()), 'commitSeals');
  t.true(validateHeader(header({ seals: [] }), ctx({ checkSeals: false })).ok, 'light validation skips seals');
});

test('timestamp at least blockperiodseconds after the parent, only when the period is ≥ 1 s', (t) => {
  failsWith(t, validateHeader(header({ timestamp: 1004 }), ctx()), 'timestampParent');
  t.true(validateHeader(header({ timestamp: 1004 }), ctx({ blockPeriodSeconds: 4 })).ok);
  t.true(validateHeader(header({ timestamp: 1000 }), ctx({ blockPeriodSeconds: 0 })).ok);
  failsWith(t, validateHeader(header({ timestamp: 999 }), ctx({ blockPeriodSeconds: 1 })), 'timestampParent');
});

test('xblockperiodmilliseconds: below 1 s no parent-timestamp rule at all, from 1 s a floor(ms / 1000) s minimum that replaces blockperiodseconds', (t) => {
  t.true(validateHeader(header({ timestamp: 1000 }), ctx({ blockPeriodSeconds: 5, blockPeriodMilliseconds: 500 })).ok, 'same timestamp as the parent');
  t.true(validateHeader(header({ timestamp: 999 }), ctx({ blockPeriodSeconds: 5, blockPeriodMilliseconds: 999 })).ok, 'even older than the parent');
  failsWith(t, validateHeader(header({ timestamp: 1000 }), ctx({ blockPeriodSeconds: 5, blockPeriodMilliseconds: 1000 })), 'timestampParent');
  t.true(validateHeader(header({ timestamp: 1001 }), ctx({ blockPeriodSeconds: 5, blockPeriodMilliseconds: 1999 })).ok, '1999 ms is a 1 s minimum');
  t.true(validateHeader(header({ timestamp: 1002 }), ctx({ blockPeriodSeconds: 1, blockPeriodMilliseconds: 2500 })).ok);
  failsWith(t, validateHeader(header({ timestamp: 1001 }), ctx({ blockPeriodSeconds: 1, blockPeriodMilliseconds: 2500 })), 'timestampParent');
});

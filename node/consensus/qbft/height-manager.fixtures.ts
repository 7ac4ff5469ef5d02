/** Fixtures for driving the pure QBFT state machine in tests: four validators, messages they sign, stub blocks. */
import { CURRENT_BESU } from '../../bugs/hooks.ts';
import { bytesToHex, utf8ToBytes, type Hex } from '../../crypto/bytes.ts';
import { keccak256 } from '../../crypto/keccak.ts';
import { privateKeyToAddress, sign } from '../../crypto/secp256k1.ts';
import type { CoreAction, CoreConfig, HeightContext, ProposedBlock } from './core-types.ts';
import { signPayload, type CommitMessage, type PrepareMessage, type ProposalMessage, type RoundChangeMessage } from './messages.ts';

export const keys = [1, 2, 3, 4]
  .map((i) => keccak256(utf8ToBytes(`hm-test-${i}`)))
  .map((privateKey) => ({ privateKey, address: privateKeyToAddress(privateKey) }))
  .sort((a, b) => (a.address < b.address ? -1 : 1));
export const validators = keys.map((k) => k.address);
export const ZERO: Hex = '0x0000000000000000000000000000000000000000';

export function ctx(overrides: Partial<HeightContext> = {}): HeightContext {
  return {
    height: 1,
    parentTimestampSeconds: 0,
    parentCoinbase: ZERO,
    validators,
    blockTimerAtMs: 1_000,
    blockPeriodSeconds: 1,
    requestTimeoutMs: 2_000,
    emptyBlockPeriodSeconds: 0,
    ...overrides,
  };
}

export function config(i: number, overrides: Partial<CoreConfig> = {}): CoreConfig {
  return { privateKey: keys[i].privateKey, address: keys[i].address, earlyRoundChange: false, layout: 'besu26', maxRound: 1000, hooks: CURRENT_BESU, ...overrides };
}

export function block(coinbase: Hex, round: number, tag = 'a', txCount = 0): ProposedBlock {
  const digestForRound = (r: number) => bytesToHex(keccak256(utf8ToBytes(`${tag}/${coinbase}/${r}`)));
  return { number: 1, coinbase, round, txCount, rlp: utf8ToBytes(`${tag}-rlp-${round}`), digest: digestForRound(round), digestForRound, digestAsReproposed: digestForRound };
}

export function proposal(i: number, round: number, b: ProposedBlock, justification: Partial<ProposalMessage> = {}): ProposalMessage {
  return { kind: 'proposal', signed: signPayload({ kind: 'proposal', sequence: 1, round, blockRlp: b.rlp }, keys[i].privateKey), roundChanges: [], prepares: [], ...justification };
}

export function prepare(i: number, round: number, b: ProposedBlock): PrepareMessage {
  return { kind: 'prepare', signed: signPayload({ kind: 'prepare', sequence: 1, round, digest: hexBytes(b.digest) }, keys[i].privateKey) };
}

export function commit(i: number, round: number, b: ProposedBlock): CommitMessage {
  const seal = sign(hexBytes(b.digestForRound(round)), keys[i].privateKey);
  return { kind: 'commit', signed: signPayload({ kind: 'commit', sequence: 1, round, digest: hexBytes(b.digest), commitSeal: seal }, keys[i].privateKey) };
}

export function roundChange(i: number, round: number, prepared?: { round: number; block: ProposedBlock; prepares: PrepareMessage[] }): RoundChangeMessage {
  return {
    kind: 'roundChange',
    signed: signPayload(
      { kind: 'roundChange', sequence: 1, round, prepared: prepared ? { preparedRound: prepared.round, preparedBlockHash: hexBytes(prepared.block.digest) } : undefined },
      keys[i].privateKey,
    ),
    preparedBlockRlp: prepared?.block.rlp,
    prepares: prepared ? prepared.prepares.map((p) => p.signed) : [],
  };
}

export function hexBytes(h: Hex): Uint8Array {
  return Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
}

export const broadcasts = (actions: CoreAction[]) => actions.flatMap((a) => (a.type === 'broadcast' ? [a.message.kind] : []));
export const of = <T extends CoreAction['type']>(actions: CoreAction[], type: T) => actions.filter((a) => a.type === type) as Array<Extract<CoreAction, { type: T }>>;

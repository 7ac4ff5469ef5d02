/**
 * QBFT messages as plain values, for comparing what a node sent with what a test expected field by
 * field (Besu's integration tests compare decoded messages recursively). Signatures are part of
 * the view: QBFT signing is deterministic (RFC 6979), so an expected message signed with the same
 * key over the same payload is equal byte for byte.
 */
import { bytesToHex } from '../../node/crypto/bytes.ts';
import type { PreparePayload, QbftMessage, RoundChangePayload, Signed } from '../../node/consensus/qbft/messages.ts';

export type MessageView = { [field: string]: string | number | null | MessageView | MessageView[] };

function signedView(s: Signed<PreparePayload> | Signed<RoundChangePayload>): MessageView {
  const p = s.payload;
  const view: MessageView = { author: s.author, sequence: p.sequence, round: p.round, signature: bytesToHex(s.signature) };
  if (p.kind === 'prepare') view.digest = bytesToHex(p.digest);
  else view.prepared = p.prepared ? { preparedRound: p.prepared.preparedRound, preparedBlockHash: bytesToHex(p.prepared.preparedBlockHash) } : null;
  return view;
}

export function messageView(m: QbftMessage): MessageView {
  const s = m.signed;
  const head: MessageView = { type: m.kind, author: s.author, sequence: s.payload.sequence, round: s.payload.round };
  switch (m.kind) {
    case 'prepare':
      return { ...head, digest: bytesToHex(m.signed.payload.digest), signature: bytesToHex(s.signature) };
    case 'commit':
      return { ...head, digest: bytesToHex(m.signed.payload.digest), commitSeal: bytesToHex(m.signed.payload.commitSeal), signature: bytesToHex(s.signature) };
    case 'roundChange':
      return {
        ...signedView(m.signed),
        type: 'roundChange',
        preparedBlock: m.preparedBlockRlp ? bytesToHex(m.preparedBlockRlp) : null,
        prepares: m.prepares.map(signedView),
      };
    case 'proposal':
      return {
        ...head,
        block: bytesToHex(m.signed.payload.blockRlp),
        signature: bytesToHex(s.signature),
        roundChanges: m.roundChanges.map(signedView),
        prepares: m.prepares.map(signedView),
      };
  }
}

/** The first field where two views differ, as `path: actual != expected`; undefined when equal. */
export function firstDifference(actual: unknown, expected: unknown, path = ''): string | undefined {
  if (actual === expected) return undefined;
  const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null;
  if (Array.isArray(actual) && Array.isArray(expected)) {
    if (actual.length !== expected.length) return `${path || 'list'}: ${actual.length} entries != ${expected.length} expected`;
    for (let i = 0; i < actual.length; i++) {
      const d = firstDifference(actual[i], expected[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (isObject(actual) && isObject(expected) && !Array.isArray(actual) && !Array.isArray(expected)) {
    for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      const d = firstDifference(actual[key], expected[key], path ? `${path}.${key}` : key);
      if (d) return d;
    }
    return undefined;
  }
  const show = (x: unknown) => (typeof x === 'string' && x.length > 42 ? `${x.slice(0, 42)}…` : JSON.stringify(x));
  return `${path || 'value'}: ${show(actual)} != ${show(expected)} expected`;
}

/**
 * SignedData = [payloadList, signature]; the signature covers keccak(RLP([code, payloadList]))
 * (Besu's QbftPayload.hashForSignature).
 */
import { RLP } from '@ethereumjs/rlp';
import { intToBytes, type Hex } from '../../../crypto/bytes.ts';
import { keccak256 } from '../../../crypto/keccak.ts';
import { addressOfKey, recoverSigner, signRemembered } from '../signer-cache.ts';
import { decodePayload, encodePayload, payloadCode } from './payloads.ts';
import { encodeRawList, isList, listItems, stringOf } from './rlp-raw.ts';
import type { Payload, Signed, WireLayout } from './types.ts';

function hashForSignature(code: number, payloadList: Uint8Array): Uint8Array {
  return keccak256(encodeRawList([RLP.encode(intToBytes(code)), payloadList]));
}

/** Signs a payload; `layout` only matters for proposals (besu26 adds the block-access-list item). */
export function signPayload<P extends Payload>(payload: P, privateKey: Uint8Array, layout: WireLayout = 'besu26'): Signed<P> {
  return signPayloadWith(payload, (hash) => signRemembered(hash, privateKey), addressOfKey(privateKey), layout);
}

/**
 * Signs a payload with `sign` (which may throw: the error propagates) as `author`, who is taken on
 * trust: nothing recovers the signature.
 */
export function signPayloadWith<P extends Payload>(
  payload: P,
  sign: (hash: Uint8Array) => Uint8Array,
  author: Hex,
  layout: WireLayout = 'besu26',
): Signed<P> {
  const payloadList = encodePayload(payload, layout);
  const signature = sign(hashForSignature(payloadCode(payload), payloadList));
  return { payload, signature, author, encoded: encodeRawList([payloadList, RLP.encode(signature)]) };
}

/** Decodes SignedData for a message code and recovers its author; `raw` must already be valid RLP. */
export function decodeSigned(code: number, raw: Uint8Array): Signed<Payload> {
  if (!isList(raw)) throw new Error('signed data must be an RLP list');
  const items = listItems(raw);
  if (items.length !== 2) throw new Error(`signed data must have 2 items, got ${items.length}`);
  const [payloadList, signatureItem] = items;
  if (!isList(payloadList)) throw new Error('payload must be an RLP list');
  const payload = decodePayload(code, payloadList);
  const signature = stringOf(signatureItem, 'signature');
  if (signature.length !== 65) throw new Error(`signature must be 65 bytes, got ${signature.length}`);
  const author = recoverSigner(hashForSignature(code, payloadList), signature);
  return { payload, signature, author, encoded: raw };
}

/**
 * SignedData = [payloadList, signature]; the signature covers keccak(RLP([code, payloadList]))
 * (Besu's QbftPayload.hashForSignature).
 */
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, intToBytes, type Hex } from '../../../crypto/bytes.ts';
import { keccak256 } from '../../../crypto/keccak.ts';
import { privateKeyToAddress, recoverAddress, sign } from '../../../crypto/secp256k1.ts';
import { decodePayload, encodePayload, payloadCode } from './payloads.ts';
import { encodeRawList, isList, listItems, stringOf } from './rlp-raw.ts';
import type { Payload, Signed, WireLayout } from './types.ts';

// Recovery is the simulator's main CPU cost: each distinct (hash, signature) is recovered once
// per process, however many nodes receive it. Failures are cached too (as their message).
const RECOVERY_CAP = 50_000;
const recovered = new Map<string, Hex | string>();
const keyAddresses = new Map<string, Hex>();

function remember(key: string, value: Hex | string): void {
  if (recovered.size >= RECOVERY_CAP) recovered.delete(recovered.keys().next().value as string);
  recovered.set(key, value);
}

function cacheKey(hash: Uint8Array, signature: Uint8Array): string {
  return bytesToHex(signature) + bytesToHex(hash).slice(2);
}

function recoverCached(hash: Uint8Array, signature: Uint8Array): Hex {
  const key = cacheKey(hash, signature);
  let value = recovered.get(key);
  if (value === undefined) {
    try {
      value = recoverAddress(hash, signature);
    } catch (err) {
      value = `invalid signature: ${(err as Error).message}`;
    }
    remember(key, value);
  }
  if (!value.startsWith('0x')) throw new Error(value);
  return value as Hex;
}

function addressOfKey(privateKey: Uint8Array): Hex {
  const key = bytesToHex(privateKey);
  let address = keyAddresses.get(key);
  if (address === undefined) {
    address = privateKeyToAddress(privateKey);
    keyAddresses.set(key, address);
  }
  return address;
}

function hashForSignature(code: number, payloadList: Uint8Array): Uint8Array {
  return keccak256(encodeRawList([RLP.encode(intToBytes(code)), payloadList]));
}

/** Signs a payload; `layout` only matters for proposals (besu26 adds the block-access-list item). */
export function signPayload<P extends Payload>(payload: P, privateKey: Uint8Array, layout: WireLayout = 'besu26'): Signed<P> {
  const payloadList = encodePayload(payload, layout);
  const hash = hashForSignature(payloadCode(payload), payloadList);
  const signature = sign(hash, privateKey);
  const author = addressOfKey(privateKey);
  remember(cacheKey(hash, signature), author);
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
  const author = recoverCached(hashForSignature(code, payloadList), signature);
  return { payload, signature, author, encoded: raw };
}

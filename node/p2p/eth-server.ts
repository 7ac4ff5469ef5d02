/**
 * Answers a peer's GetBlockHeaders and GetBlockBodies from our chain, Besu style: the origin is
 * looked up by hash (any block we hold) or by canonical number, the following headers by
 * canonical number; a reverse walk without skip follows parent hashes instead, so it also works
 * from a side-chain origin. Responses are capped in count and (softly) in bytes.
 */
import { RLP } from '@ethereumjs/rlp';
import type { Block } from '@ethereumjs/block';
import { bytesToHex, type Hex } from '../crypto/bytes.ts';
import type { ChainView } from './chain-view.ts';
import { bodyToWire, headerToWire } from './eth-blocks.ts';
import type { BlockBodyWire, GetBlockHeadersMsg, HeaderFields } from './eth-messages.ts';

export const ServeLimits = {
  maxHeaders: 1024,
  maxBodies: 128,
  /** Stop adding bodies once the response holds this many bytes (at least one is always sent). */
  softResponseBytes: 2 * 1024 * 1024,
} as const;

function originBlock(chain: ChainView, origin: GetBlockHeadersMsg['origin']): Block | undefined {
  if ('hash' in origin) return chain.blockByHash(origin.hash);
  const hash = chain.canonicalHashAt(origin.number);
  return hash === undefined ? undefined : chain.blockByHash(hash);
}

export function serveBlockHeaders(chain: ChainView, req: Omit<GetBlockHeadersMsg, 'code' | 'requestId'>): HeaderFields[] {
  const amount = Math.min(req.amount, ServeLimits.maxHeaders);
  const out: HeaderFields[] = [];
  if (amount === 0) return out;
  let block = originBlock(chain, req.origin);
  if (!block) return out;
  out.push(headerToWire(block.header));
  const originNumber = Number(block.header.number);
  const stride = req.skip + 1;
  for (let i = 1; i < amount; i++) {
    if (req.reverse && req.skip === 0) {
      if (block.header.number === 0n) break;
      block = chain.blockByHash(bytesToHex(block.header.parentHash));
    } else {
      const n = req.reverse ? originNumber - i * stride : originNumber + i * stride;
      if (!Number.isSafeInteger(n) || n < 0) break;
      const hash = chain.canonicalHashAt(n);
      block = hash === undefined ? undefined : chain.blockByHash(hash);
    }
    if (!block) break;
    out.push(headerToWire(block.header));
  }
  return out;
}

export function serveBlockBodies(chain: ChainView, hashes: Hex[]): BlockBodyWire[] {
  const out: BlockBodyWire[] = [];
  let bytes = 0;
  for (const hash of hashes.slice(0, ServeLimits.maxBodies)) {
    const block = chain.blockByHash(hash);
    if (!block) continue; // eth: unknown bodies are skipped
    const body = bodyToWire(block);
    const size = RLP.encode(body.transactions).length;
    if (out.length > 0 && bytes + size > ServeLimits.softResponseBytes) break;
    bytes += size;
    out.push(body);
  }
  return out;
}

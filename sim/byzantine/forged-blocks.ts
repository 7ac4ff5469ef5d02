/**
 * Forged blocks over the eth protocol. The node's own consensus stays honest; what it serves to a
 * syncing peer (BlockHeaders, BlockBodies) and the blocks it announces (NewBlock) are forged, one
 * variant per message, in turn:
 * - forged-seals: every seal signs keccak(committed-seal hash) instead of the hash;
 * - missing-seals: no seals at all;
 * - too-few-seals: one seal short of the quorum;
 * - duplicated-seal: one short of the quorum, padded with a copy of the first seal;
 * - non-validator-seal: one short of the quorum, plus a seal by a key no validator holds;
 * - wrong-round: the extraData round + 1, the seals kept (they sign the real round);
 * - body-mismatch: the body carries an ommer its header does not name (the header lies about it);
 * - wrong-parent (NewBlock only): the parent hash of the block's parent (a block the receiver holds,
 *   at the wrong height) when known, else the block number + 1;
 * - future-timestamp (NewBlock only): the timestamp an hour ahead.
 * The on-chain hash leaves out the round and the seals, so every variant but the last two keeps
 * the block's hash: a peer syncing from this node asks for the bodies of the hashes it was served,
 * and the node's own code answers them. A peer that already holds the block ignores the copy.
 */
import { bytesToBigInt, bytesToHex, hexToBytes, intToBytes, type Hex } from '../../node/crypto/bytes.ts';
import { keccak256 } from '../../node/crypto/keccak.ts';
import { blockFromValues, committedSealHash } from '../../node/chain/block-hashing.ts';
import { decodeExtraData, encodeExtraData } from '../../node/chain/extra-data.ts';
import { quorumSize } from '../../node/consensus/qbft/quorum.ts';
import { signRemembered } from '../../node/consensus/qbft/signer-cache.ts';
import { decodeEthMessage, EthCode, toWireMessage, type BlockBodyWire, type HeaderFields } from '../../node/p2p/eth-messages.ts';
import type { PeerId, WireMessage } from '../../node/runtime/ports.ts';
import { FORGER_KEY, istanbul, type Behaviour, type ByzantineKit, type Plan } from './kit.ts';

export const FORGED_SEAL_VARIANTS = ['forged-seals', 'missing-seals', 'too-few-seals', 'duplicated-seal', 'non-validator-seal', 'wrong-round'] as const;
export const FORGED_BLOCK_VARIANTS = [...FORGED_SEAL_VARIANTS, 'body-mismatch', 'wrong-parent', 'future-timestamp'] as const;
export type ForgedBlockVariant = (typeof FORGED_BLOCK_VARIANTS)[number];
/** What a header served during sync may be forged into (the hash must stay, so the bodies are served). */
const SYNC_VARIANTS: readonly ForgedBlockVariant[] = [...FORGED_SEAL_VARIANTS, 'body-mismatch'];

const PARENT_HASH_INDEX = 0;
const NUMBER_INDEX = 8;
const TIMESTAMP_INDEX = 11;
const EXTRA_DATA_INDEX = 12;
const FUTURE_SECONDS = 3600;

/** Per-peer: the bodies of the last headers served to it must lie about them. */
const LIE_ABOUT_BODIES = 'forge-blocks:lie-about-bodies';
/** Parent hash of each block number the node announced, for wrong-parent. */
const PARENT_OF = 'forge-blocks:parent-of';

function scalarOf(field: Uint8Array): number {
  return Number(bytesToBigInt(field));
}

function withField(header: HeaderFields, index: number, value: Uint8Array): HeaderFields {
  const copy = [...header];
  copy[index] = value;
  return copy;
}

/** The seals of a header rewritten by a seal variant (the header itself otherwise unchanged). */
export function forgedSeals(kit: ByzantineKit, header: HeaderFields, variant: (typeof FORGED_SEAL_VARIANTS)[number]): HeaderFields {
  const extra = decodeExtraData(header[EXTRA_DATA_INDEX]);
  const short = extra.seals.slice(0, Math.max(0, quorumSize(extra.validators.length) - 1));
  const sealHash = () => committedSealHash(blockFromValues([header, [], []], kit.common).header, extra.round);
  const seals = (): Uint8Array[] => {
    switch (variant) {
      case 'forged-seals':
        return extra.seals.map(() => signRemembered(keccak256(sealHash()), kit.privateKey));
      case 'missing-seals':
        return [];
      case 'too-few-seals':
        return short;
      case 'duplicated-seal':
        return short.length > 0 ? [...short, short[0]] : [extra.seals[0] ?? new Uint8Array(65), extra.seals[0] ?? new Uint8Array(65)];
      case 'non-validator-seal':
        return [...short, signRemembered(sealHash(), FORGER_KEY)];
      case 'wrong-round':
        return extra.seals;
    }
  };
  const round = variant === 'wrong-round' ? extra.round + 1 : extra.round;
  return withField(header, EXTRA_DATA_INDEX, encodeExtraData({ ...extra, round, seals: seals() }));
}

function pickVariant(kit: ByzantineKit, pool: readonly ForgedBlockVariant[], salt: number): ForgedBlockVariant {
  return pool[kit.turn('forge-blocks', salt) % pool.length];
}

function lyingBody(body: BlockBodyWire, ommer: HeaderFields): BlockBodyWire {
  return { ...body, ommers: [...body.ommers, ommer] };
}

/** A served header batch: every header forged by one variant (body-mismatch: the bodies that follow lie instead). */
function forgeHeaders(kit: ByzantineKit, message: WireMessage): Plan {
  const m = decodeEthMessage(message.code, message.data);
  if (m.code !== EthCode.BlockHeaders || m.headers.length === 0) return [message];
  const variant = pickVariant(kit, SYNC_VARIANTS, scalarOf(m.headers[0][NUMBER_INDEX]));
  kit.act(`forge-blocks:headers-${variant}`);
  if (variant === 'body-mismatch') {
    return (to: PeerId) => {
      kit.state.set(`${LIE_ABOUT_BODIES}:${to}`, m.headers[0]);
      return [message];
    };
  }
  const headers = m.headers.map((h) => forgedSeals(kit, h, variant as (typeof FORGED_SEAL_VARIANTS)[number]));
  return [toWireMessage({ ...m, headers })];
}

/** Served bodies: an ommer added to each when the headers before them picked body-mismatch. */
function forgeBodies(kit: ByzantineKit, message: WireMessage): Plan {
  return (to: PeerId) => {
    const ommer = kit.state.get(`${LIE_ABOUT_BODIES}:${to}`) as HeaderFields | undefined;
    if (!ommer) return [message];
    kit.state.delete(`${LIE_ABOUT_BODIES}:${to}`);
    try {
      const m = decodeEthMessage(message.code, message.data);
      if (m.code !== EthCode.BlockBodies) return [message];
      kit.act('forge-blocks:bodies-body-mismatch');
      return [toWireMessage({ ...m, bodies: m.bodies.map((b) => lyingBody(b, ommer)) })];
    } catch {
      return [message];
    }
  };
}

function parentsOf(kit: ByzantineKit): Map<number, Hex> {
  let map = kit.state.get(PARENT_OF) as Map<number, Hex> | undefined;
  if (!map) kit.state.set(PARENT_OF, (map = new Map()));
  return map;
}

/** An announced block, forged by the next variant. */
function forgeAnnouncement(kit: ByzantineKit, message: WireMessage): Plan {
  const m = decodeEthMessage(message.code, message.data);
  if (m.code !== EthCode.NewBlock) return [message];
  const header = m.block.header;
  const number = scalarOf(header[NUMBER_INDEX]);
  const parents = parentsOf(kit);
  parents.set(number, bytesToHex(header[PARENT_HASH_INDEX]));
  parents.delete(number - 64);
  const variant = pickVariant(kit, FORGED_BLOCK_VARIANTS, number);
  kit.act(`forge-blocks:announced-${variant}`);
  const block = { ...m.block };
  switch (variant) {
    case 'body-mismatch':
      Object.assign(block, lyingBody(block, header));
      break;
    case 'wrong-parent': {
      const grandparent = parents.get(number - 1);
      block.header = grandparent ? withField(header, PARENT_HASH_INDEX, hexToBytes(grandparent)) : withField(header, NUMBER_INDEX, intToBytes(number + 1));
      break;
    }
    case 'future-timestamp':
      block.header = withField(header, TIMESTAMP_INDEX, intToBytes(scalarOf(header[TIMESTAMP_INDEX]) + FUTURE_SECONDS));
      break;
    default:
      block.header = forgedSeals(kit, header, variant);
  }
  return [toWireMessage({ ...m, block })];
}

export const forgeBlocks: Behaviour = {
  plan(_kit, out) {
    return [istanbul(out.code, out.data)];
  },
  planEth(kit, message) {
    try {
      if (message.code === EthCode.BlockHeaders) return forgeHeaders(kit, message);
      if (message.code === EthCode.BlockBodies) return forgeBodies(kit, message);
      if (message.code === EthCode.NewBlock) return forgeAnnouncement(kit, message);
    } catch {
      // A message the forger cannot read goes out as the node wrote it.
    }
    return [message];
  },
};

/**
 * The validators a validator contract lists on a genesis state: one node (not a validator) is
 * started on the genesis in a world of its own and calls getValidators() on each contract, as a
 * node in contract mode does.
 */
import { hexToBytes, type Hex } from '../../node/crypto/bytes.ts';
import { deterministicKey } from '../keys.ts';
import { World } from '../world.ts';

const GET_VALIDATORS = hexToBytes('0xb7ab4db5');
/** More than any network a scenario can run; bounds what a contract's answer may claim. */
const MAX_LISTED = 10_000;

function word(data: Uint8Array, index: number): bigint {
  const start = index * 32;
  if (start + 32 > data.length) throw new Error('returned truncated data');
  let v = 0n;
  for (let i = start; i < start + 32; i++) v = (v << 8n) | BigInt(data[i]);
  return v;
}

/** The ABI encoding of one `address[]`. */
export function decodeAddressList(data: Uint8Array): Hex[] {
  const offset = word(data, 0);
  if (offset % 32n !== 0n || offset >= BigInt(data.length)) throw new Error('returned a bad offset');
  const base = Number(offset / 32n);
  const length = word(data, base);
  if (length > BigInt(MAX_LISTED)) throw new Error('returned too many validators');
  const out: Hex[] = [];
  for (let i = 0; i < Number(length); i++) {
    const v = word(data, base + 1 + i);
    if (v >> 160n !== 0n) throw new Error('returned a value that is not an address');
    out.push(`0x${v.toString(16).padStart(40, '0')}`);
  }
  return out;
}

export async function contractValidatorsAtGenesis(genesis: Record<string, unknown>, contracts: readonly Hex[]): Promise<Map<Hex, Hex[]>> {
  const world = new World({ seed: 1, genesis, nodes: [{ name: 'probe', key: deterministicKey('operator-probe', 0) }] });
  await world.startNode('probe');
  const node = world.get('probe').node;
  if (!node) throw new Error('the genesis does not start a node');
  const genesisBlock = node.blockAt(0)!.block;
  const lists = new Map<Hex, Hex[]>();
  try {
    for (const address of contracts) {
      const code = await node.code(genesisBlock.header.stateRoot, address);
      if (code.length === 0) throw new Error(`validator contract ${address} has no code in the genesis alloc, so its validators are not known before the chain runs`);
      const result = await node.call(genesisBlock.header.stateRoot, genesisBlock.header, address, GET_VALIDATORS);
      if (result.error) throw new Error(`validator contract ${address}: getValidators() failed on the genesis state: ${result.error}`);
      try {
        lists.set(address, decodeAddressList(result.returnValue));
      } catch (err) {
        throw new Error(`validator contract ${address}: getValidators() ${(err as Error).message}`);
      }
    }
  } finally {
    world.crash('probe');
  }
  return lists;
}

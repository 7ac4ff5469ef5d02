/**
 * `rlp encode|decode --type=QBFT_EXTRA_DATA|IBFT_EXTRA_DATA [--from FILE] [--to FILE]`, as Besu's
 * `besu rlp` subcommand: encode reads a JSON array of validator addresses, decode reads the hex.
 */
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes, type Hex } from '../crypto/bytes.ts';
import { decodeExtraData, encodeExtraDataFromAddresses } from '../chain/extra-data.ts';
import { UsageError } from './usage-error.ts';

export type ExtraDataType = 'QBFT_EXTRA_DATA' | 'IBFT_EXTRA_DATA';

function parseAddresses(json: string): Hex[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new UsageError('rlp encode: input must be a JSON array of validator addresses');
  }
  if (!Array.isArray(value)) throw new UsageError('rlp encode: input must be a JSON array of validator addresses');
  return value.map((a, i) => {
    if (typeof a !== 'string' || !/^(0x)?[0-9a-fA-F]{40}$/.test(a)) throw new UsageError(`rlp encode: element ${i} is not a 20-byte hex address`);
    return (a.startsWith('0x') ? a : `0x${a}`).toLowerCase() as Hex;
  });
}

/** IBFT 2.0 extraData: the round is a fixed 4-byte integer and "no vote" is written as 0x80. */
function encodeIbftExtraData(validators: Hex[]): Uint8Array {
  return RLP.encode([new Uint8Array(32), validators.map((v) => hexToBytes(v)), new Uint8Array(0), new Uint8Array(4), []]);
}

function decodeIbftValidators(bytes: Uint8Array): Hex[] {
  const decoded = RLP.decode(bytes);
  if (!Array.isArray(decoded) || decoded.length < 2 || !Array.isArray(decoded[1])) throw new UsageError('rlp decode: not IBFT extraData');
  return (decoded[1] as Uint8Array[]).map((a) => bytesToHex(a));
}

export function rlpEncode(type: ExtraDataType, input: string): string {
  const validators = parseAddresses(input);
  return bytesToHex(type === 'QBFT_EXTRA_DATA' ? encodeExtraDataFromAddresses(validators) : encodeIbftExtraData(validators));
}

export function rlpDecode(type: ExtraDataType, input: string): string {
  const text = input.trim();
  if (!/^(0x)?[0-9a-fA-F]*$/.test(text) || text.replace(/^0x/, '').length % 2 !== 0) throw new UsageError('rlp decode: input must be hex');
  let validators: Hex[];
  try {
    validators = type === 'QBFT_EXTRA_DATA' ? decodeExtraData(hexToBytes(text)).validators : decodeIbftValidators(hexToBytes(text));
  } catch (err) {
    throw new UsageError(`rlp decode: ${(err as Error).message}`);
  }
  return `[${validators.join(', ')}]`;
}

export function parseExtraDataType(value: string | undefined): ExtraDataType {
  const type = (value ?? 'IBFT_EXTRA_DATA').toUpperCase();
  if (type !== 'QBFT_EXTRA_DATA' && type !== 'IBFT_EXTRA_DATA')
    throw new UsageError(`Invalid value for option '--type': expected one of [IBFT_EXTRA_DATA, QBFT_EXTRA_DATA] but was '${value}'`);
  return type;
}

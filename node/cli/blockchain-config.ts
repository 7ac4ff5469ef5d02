/**
 * The work of Besu's `operator generate-blockchain-config` (GenerateBlockchainConfig.java), without
 * the file system: read the configuration file's `genesis` object and `blockchain.nodes`
 * ({"generate": true, "count": N} or {"keys": [public keys]}), make or import the node keys, and
 * fill the genesis `extraData` with them as the validators (in key order, as Besu does; the node
 * sorts a validator set when it reads one). The genesis is otherwise written back as given.
 *
 * Besu writes whatever the genesis holds; here the result must also load with this node's genesis
 * parser, so a genesis the node would refuse is refused before anything is written.
 */
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes, type Hex } from '../crypto/bytes.ts';
import { decodeExtraData, encodeExtraDataFromAddresses } from '../chain/extra-data.ts';
import { GenesisError, parseGenesis, type Genesis } from '../chain/genesis.ts';
import { isJsonObject, jsonTypeName, JsonNumber, JsonSyntaxError, parseLosslessJson, stringifyLosslessJson, type JsonObject, type JsonValue } from './lossless-json.ts';
import { generateKeyPair, importPublicKey, KeyImportError, type NodeKeyPair, type RandomBytes } from './validator-keys.ts';

export class BlockchainConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlockchainConfigError';
  }
}

/** An upper bound on `count`, so a typo cannot fill the disk with key directories. */
export const MAX_GENERATED_KEYS = 1000;

export type BftConsensus = 'qbft' | 'ibft2';

export type NodesSpec = { generate: true; count: number } | { generate: false; publicKeys: string[] };

export interface BlockchainConfigRequest {
  genesis: JsonObject;
  consensus: BftConsensus;
  nodes: NodesSpec;
}

export interface BlockchainConfig {
  consensus: BftConsensus;
  /** In the order they were generated or listed; extraData lists them in this order. */
  nodes: NodeKeyPair[];
  /** The genesis file's text. */
  genesisText: string;
  /** The same genesis as the node reads it. */
  genesis: Genesis;
}

const SUPPORTED_CURVE = 'secp256k1';
const BESU_CURVES = ['secp256k1', 'secp256r1'];

/** Jackson's lower-case type name, for Besu's "Expected X value but got Y". */
function typeOf(v: JsonValue): string {
  return jsonTypeName(v).toLowerCase();
}

/** Besu's JsonUtil.getObjectNode: absent or null is "none"; any other non-object is an error. */
function optionalObject(parent: JsonObject, key: string, path: string): JsonObject | undefined {
  const v = parent.get(key);
  if (v === undefined || v === null) return undefined;
  if (!isJsonObject(v)) throw new BlockchainConfigError(`${path}: Expected object value but got ${typeOf(v)}`);
  return v;
}

/** The genesis parser lower-cases keys, so `Config` or `QBFT` count too; the exact spelling wins. */
function keyOf(object: JsonObject, lowerCaseKey: string): string | undefined {
  if (object.has(lowerCaseKey)) return lowerCaseKey;
  return [...object.keys()].find((k) => k.toLowerCase() === lowerCaseKey);
}

function parseNodes(nodes: JsonObject | undefined): NodesSpec {
  const generate = nodes?.get('generate');
  if (generate !== undefined && generate !== null && typeof generate !== 'boolean')
    throw new BlockchainConfigError(`blockchain.nodes.generate: Expected boolean value but got ${typeOf(generate)}`);
  if (generate === true) {
    const count = nodes?.get('count');
    if (count === undefined || count === null) throw new BlockchainConfigError('blockchain.nodes.count is missing: give the number of node keys to generate');
    if (!(count instanceof JsonNumber)) throw new BlockchainConfigError(`blockchain.nodes.count: Expected number value but got ${typeOf(count)}`);
    if (!/^-?\d+$/.test(count.text) || !Number.isSafeInteger(Number(count.text))) throw new BlockchainConfigError(`blockchain.nodes.count: Cannot convert value to integer: ${count.text}`);
    const n = Number(count.text);
    if (n < 1 || n > MAX_GENERATED_KEYS) throw new BlockchainConfigError(`blockchain.nodes.count: ${n} is not between 1 and ${MAX_GENERATED_KEYS}`);
    return { generate: true, count: n };
  }
  const keys = nodes?.get('keys');
  if (keys === undefined || keys === null)
    throw new BlockchainConfigError('blockchain.nodes: no validators; set "generate": true with a "count", or list public keys in "keys"');
  if (!Array.isArray(keys)) throw new BlockchainConfigError(`blockchain.nodes.keys: Expected array value but got ${typeOf(keys)}`);
  if (keys.length === 0) throw new BlockchainConfigError('blockchain.nodes.keys is empty: list at least one public key');
  const publicKeys = keys.map((k, i) => {
    if (typeof k !== 'string') throw new BlockchainConfigError(`blockchain.nodes.keys[${i}]: Invalid key json of type: ${jsonTypeName(k)}`);
    return k;
  });
  return { generate: false, publicKeys };
}

function parseConsensus(genesis: JsonObject): BftConsensus {
  const configKey = keyOf(genesis, 'config');
  const config = configKey === undefined ? undefined : optionalObject(genesis, configKey, `genesis.${configKey}`);
  if (!config) throw new BlockchainConfigError('Missing config section in config file (genesis.config)');
  const curveKey = keyOf(config, 'eccurve');
  const curve = curveKey === undefined ? undefined : config.get(curveKey);
  if (curve !== undefined && curve !== null) {
    if (typeof curve !== 'string') throw new BlockchainConfigError(`genesis.config.${curveKey}: Expected string value but got ${typeOf(curve)}`);
    if (!BESU_CURVES.includes(curve))
      throw new BlockchainConfigError(`Invalid parameter for ecCurve in genesis config: ${curve} is not in the list of valid elliptic curves [${BESU_CURVES.join(', ')}]`);
    if (curve !== SUPPORTED_CURVE) throw new BlockchainConfigError(`genesis.config.${curveKey}: ${curve} is not supported; qbft-lab nodes sign with ${SUPPORTED_CURVE} only`);
  }
  // Besu checks ibft2 first; a genesis with both is refused by the genesis parser afterwards.
  if (keyOf(config, 'ibft2') !== undefined) return 'ibft2';
  if (keyOf(config, 'qbft') !== undefined) return 'qbft';
  throw new BlockchainConfigError('genesis.config has no qbft (or ibft2) section; generate-blockchain-config fills extraData for QBFT and IBFT 2.0 only');
}

export function parseBlockchainConfig(text: string): BlockchainConfigRequest {
  let root: JsonValue;
  try {
    root = parseLosslessJson(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new BlockchainConfigError(`is not valid JSON: ${err.message}`);
    throw err;
  }
  if (!isJsonObject(root)) throw new BlockchainConfigError(`Expected object value but got ${typeOf(root)}`);
  const genesis = optionalObject(root, 'genesis', 'genesis');
  if (!genesis) throw new BlockchainConfigError('Missing config section in config file (genesis.config)');
  const consensus = parseConsensus(genesis);
  const blockchain = optionalObject(root, 'blockchain', 'blockchain');
  const nodes = blockchain && optionalObject(blockchain, 'nodes', 'blockchain.nodes');
  return { genesis, consensus, nodes: parseNodes(nodes) };
}

/** IBFT 2.0 genesis extraData (Besu's IbftExtraDataCodec): no vote is an empty string, the round a 4-byte integer. */
export function encodeIbftGenesisExtraData(validators: Hex[]): Uint8Array {
  return RLP.encode([new Uint8Array(32), validators.map((v) => hexToBytes(v)), new Uint8Array(0), new Uint8Array(4), []]);
}

function nodeKeys(spec: NodesSpec, random: RandomBytes): NodeKeyPair[] {
  if (spec.generate) return Array.from({ length: spec.count }, () => generateKeyPair(random));
  const seen = new Map<Hex, number>();
  return spec.publicKeys.map((text, i) => {
    let pair: NodeKeyPair;
    try {
      pair = importPublicKey(text);
    } catch (err) {
      if (err instanceof KeyImportError) throw new BlockchainConfigError(`blockchain.nodes.keys[${i}]: ${err.message}`);
      throw err;
    }
    const first = seen.get(pair.address);
    if (first !== undefined) throw new BlockchainConfigError(`blockchain.nodes.keys[${i}] repeats keys[${first}] (address ${pair.address})`);
    seen.set(pair.address, i);
    return pair;
  });
}

/** The genesis with `extraData` set: a key spelled otherwise (`extradata`) is replaced where it stood. */
function withExtraData(genesis: JsonObject, extraData: Hex): JsonObject {
  const out: JsonObject = new Map();
  let placed = false;
  for (const [key, value] of genesis) {
    if (key.toLowerCase() !== 'extradata') out.set(key, value);
    else if (!placed) {
      out.set('extraData', extraData);
      placed = true;
    }
  }
  if (!placed) out.set('extraData', extraData);
  return out;
}

export function buildBlockchainConfig(request: BlockchainConfigRequest, random: RandomBytes): BlockchainConfig {
  const nodes = nodeKeys(request.nodes, random);
  const addresses = nodes.map((n) => n.address);
  const extraData = request.consensus === 'qbft' ? encodeExtraDataFromAddresses(addresses) : encodeIbftGenesisExtraData(addresses);
  const genesisText = stringifyLosslessJson(withExtraData(request.genesis, bytesToHex(extraData))) + '\n';
  let genesis: Genesis;
  try {
    genesis = parseGenesis(genesisText);
  } catch (err) {
    if (err instanceof GenesisError) throw new BlockchainConfigError(`the generated genesis would not load: ${err.message}`);
    throw err;
  }
  if (request.consensus === 'qbft' && decodeExtraData(genesis.extraData).validators.join() !== addresses.join())
    throw new Error('generated extraData does not list the generated validators');
  return { consensus: request.consensus, nodes, genesisText, genesis };
}

/**
 * The @ethereumjs Common for a genesis: chain id, and a hardfork schedule that follows Besu's
 * milestones (only configured forks activate; an unconfigured fork is included with the next
 * configured one, since each Besu spec builds on all earlier ones).
 *
 * Consensus: for QBFT / IBFT 2.0 / Clique genesis files the chain gets a custom consensus type
 * `bft` (algorithm = the config section name). The library only special-cases `pow` (pays its own
 * block and uncle rewards in runBlock/buildBlock), `poa` (takes the fee recipient and the COINBASE
 * opcode from a Clique signature in extraData) and `pos`; `bft` is none of them, so no reward is
 * paid, fees go to header.coinbase and COINBASE returns header.coinbase, as in Besu's BFT specs.
 * Paris is re-declared without its `pos` consensus switch so that PREVRANDAO (EIP-4399, part of
 * every Besu spec from Shanghai on) is on without turning the chain into proof of stake.
 * Any other genesis (e.g. `ethash`) gets pow/ethash: the library pays Besu's mainnet rewards.
 */
import { Common, Hardfork, Mainnet, type ChainConfig, type CustomCrypto, type HardforkConfig, type HardforkTransitionConfig } from '@ethereumjs/common';
import { bytesToHex } from '../crypto/bytes.ts';
import { customCrypto as ethereumjsCrypto } from '../crypto/ethereumjs-crypto.ts';
import { BLOCK_FORK_KEYS, TIME_FORK_KEYS, type BlobParams, type Genesis } from './genesis.ts';

export interface CommonOptions {
  /** Merged over the default: node/crypto/ethereumjs-crypto.ts (native keccak and secp256k1 when they load). */
  customCrypto?: CustomCrypto;
}

const BLOCK_ORDER = BLOCK_FORK_KEYS.map(([name]) => name);
const TIME_ORDER = TIME_FORK_KEYS.map(([name]) => name);

/** The hardfork list handed to Common, chainstart first. */
export function hardforkSchedule(genesis: Genesis): HardforkTransitionConfig[] {
  const times = TIME_ORDER.filter((n) => genesis.forkTimestamps[n] !== undefined);
  const firstTime = times.length > 0 ? genesis.forkTimestamps[times[0]] : undefined;
  const timeForkAtGenesis = firstTime !== undefined && firstTime <= genesis.timestamp;
  const out: HardforkTransitionConfig[] = [{ name: Hardfork.Chainstart, block: 0 }];
  BLOCK_ORDER.forEach((name, i) => {
    let block: number | null = genesis.forkBlocks[name] ?? null;
    if (block === null) {
      // Implicitly part of the next configured block fork...
      for (const later of BLOCK_ORDER.slice(i + 1)) {
        if (genesis.forkBlocks[later] !== undefined) {
          block = genesis.forkBlocks[later];
          break;
        }
      }
    }
    // ...or of the first time fork (null keeps it in the list: Common applies the EIPs of every
    // listed fork before the active one, so it switches on together with that time fork).
    if (block === null && timeForkAtGenesis) block = 0;
    out.push({ name, block });
    if (name === Hardfork.Homestead && genesis.forkBlocks.dao !== undefined) out.push({ name: Hardfork.Dao, block: genesis.forkBlocks.dao });
  });
  // Unconfigured time forks before a configured one come with it.
  TIME_ORDER.forEach((name, i) => {
    const own = genesis.forkTimestamps[name];
    const later = TIME_ORDER.slice(i + 1).find((n) => genesis.forkTimestamps[n] !== undefined);
    const timestamp = own ?? (later !== undefined ? genesis.forkTimestamps[later] : undefined);
    if (timestamp !== undefined) out.push({ name, block: null, timestamp });
  });
  return out;
}

function consensusFor(genesis: Genesis): ChainConfig['consensus'] {
  if (genesis.consensus === 'ethash') return { type: 'pow', algorithm: 'ethash', ethash: {} };
  return { type: 'bft', algorithm: genesis.consensus };
}

const BLOB_GAS_PER_BLOB = 131_072;
/** The library's own figures of the forks that set them (EIP-4844, EIP-7691). */
const LIBRARY_BLOBS: Record<string, BlobParams> = {
  cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3_338_477 },
  prague: { target: 6, max: 9, baseFeeUpdateFraction: 5_007_716 },
};
/** Prague's EIPs without 2935, 6110, 7002 and 7251 (see customHardforks). */
const BFT_PRAGUE_EIPS = [2537, 7623, 7685, 7691, 7702];

/**
 * The library's own hardfork definitions by name. It does not export its table, so they are read
 * once from a mainnet Common (whose schedule lists every fork up to bpo2).
 */
const libraryHardforks: ReadonlyMap<string, HardforkConfig> = (() => {
  const changes = (new Common({ chain: Mainnet }) as unknown as { HARDFORK_CHANGES?: Array<[string, HardforkConfig]> }).HARDFORK_CHANGES;
  if (!Array.isArray(changes) || !changes.some(([name]) => name === 'osaka')) throw new Error('@ethereumjs/common: cannot read its hardfork definitions');
  return new Map(changes);
})();

/**
 * Hardfork definitions that differ from the library's: Paris without proof of stake on BFT chains
 * (see the file comment), forks with a `blobSchedule` entry carrying its blob gas figures, and the
 * blob-parameter-only forks the library does not define (bpo3..bpo5: no EIPs of their own).
 */
function customHardforks(genesis: Genesis, bft: boolean): NonNullable<ChainConfig['customHardforks']> {
  const out: NonNullable<ChainConfig['customHardforks']> = {};
  if (bft) out[Hardfork.Paris] = { eips: [3675, 4399] };
  // Besu's Prague on Clique/IBFT 2.0/QBFT: no EIP-2935 history system call (BLOCKHASH reads the
  // chain as before) and no EIP-6110/7002/7251 request processors (MainnetProtocolSpecs:
  // FrontierPreExecutionProcessor and RequestProcessorCoordinator.noOp() for PoA); EIP-7685's
  // requestsHash stays in the header, the hash of no requests.
  if (bft) out[Hardfork.Prague] = { ...libraryHardforks.get(Hardfork.Prague)!, eips: BFT_PRAGUE_EIPS };
  // The library reads a bpo fork's figures from `target`/`max` (blob counts) and the others' from
  // `targetBlobGasPerBlock`/`maxBlobGasPerBlock`, so every bpo fork carries both, even without an entry.
  let inForce: BlobParams = LIBRARY_BLOBS.cancun;
  for (const name of TIME_ORDER) {
    // Every bpo fork is redefined, scheduled or not: an unscheduled one can still switch on with a
    // later configured fork (see hardforkSchedule).
    const bpo = name.startsWith('bpo');
    if (genesis.forkTimestamps[name] === undefined && !bpo) continue;
    const blobs = genesis.blobSchedule[name];
    // A blob-parameter fork changes only what its blobSchedule entry says (Besu keeps the previous
    // schedule without one); the library's bpo1/bpo2 carry mainnet's figures instead.
    const base: HardforkConfig | undefined = bpo ? { eips: [] } : (out[name] ?? libraryHardforks.get(name));
    if (!base) continue;
    inForce = blobs ?? LIBRARY_BLOBS[name] ?? inForce;
    if (!blobs && !bpo) continue;
    out[name] = {
      ...base,
      params: {
        ...(bpo ? {} : (base.params ?? {})),
        ...(bpo ? { target: inForce.target, max: inForce.max } : {}),
        targetBlobGasPerBlock: BLOB_GAS_PER_BLOB * inForce.target,
        maxBlobGasPerBlock: BLOB_GAS_PER_BLOB * inForce.max,
        blobGasPriceUpdateFraction: inForce.baseFeeUpdateFraction,
      },
    };
  }
  return out;
}

export function createCommonFromGenesis(genesis: Genesis, options: CommonOptions = {}): Common {
  const bft = genesis.consensus !== 'ethash';
  const chain: ChainConfig = {
    name: `qbft-lab-${genesis.chainId}`,
    chainId: genesis.chainId.toString(),
    genesis: {
      timestamp: `0x${genesis.timestamp.toString(16)}`,
      gasLimit: `0x${genesis.gasLimit.toString(16)}`,
      difficulty: `0x${genesis.difficulty.toString(16)}`,
      nonce: bytesToHex(genesis.nonce),
      extraData: bytesToHex(genesis.extraData),
      ...(genesis.baseFeePerGas !== undefined ? { baseFeePerGas: `0x${genesis.baseFeePerGas.toString(16)}` as const } : {}),
    },
    hardforks: hardforkSchedule(genesis),
    bootstrapNodes: [],
    consensus: consensusFor(genesis),
    customHardforks: customHardforks(genesis, bft),
  };
  const common = new Common({ chain, customCrypto: { ...ethereumjsCrypto, ...options.customCrypto } });
  common.setHardforkBy({ blockNumber: 0n, timestamp: BigInt(genesis.timestamp) });
  return common;
}

const shared = new WeakMap<Genesis, Common>();

/**
 * One Common per parsed genesis, shared by the nodes built from it (in the simulator, every node of
 * a network), so that decoded blocks can be shared too. Never call setHardfork* on it: copy it.
 */
export function sharedCommonFor(genesis: Genesis): Common {
  let common = shared.get(genesis);
  if (!common) shared.set(genesis, (common = createCommonFromGenesis(genesis)));
  return common;
}

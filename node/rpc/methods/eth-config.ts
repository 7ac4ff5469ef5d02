/**
 * eth_config (EIP-7910), as Besu's EthConfig answers it (besu: ethereum/api/.../methods/EthConfig.java,
 * ethereum/eth/.../forkid/ForkIdManager.java; snapshot 3fd224e2):
 *
 * - `current`: the fork of the head's child at the node's present time; `next`: the first
 *   time-scheduled fork after the present time; `last`: the last scheduled fork. With no future
 *   fork both `next` and `last` are null.
 * - `activationTime` is the fork's milestone: a timestamp, or a block number for block forks
 *   (Besu prints whichever the fork is scheduled by).
 * - `forkId` (EIP-2124): CRC-32 of the genesis hash updated with every fork activation up to the
 *   fork, block numbers first, then timestamps after the genesis time.
 * - `blobSchedule`: the fork's blob figures (its genesis `blobSchedule` entry, else the default);
 *   before Cancun Besu reports the default blob gas limit (max 6) with target 0 and fraction 0.
 * - `precompiles`: Besu's registry names; Prague adds the BLS12-381 ones, Osaka P256VERIFY.
 * - `systemContracts`: the pre-execution and request contracts the spec calls. Besu's specs for
 *   Clique, IBFT 2.0 and QBFT call none (FrontierPreExecutionProcessor, no request processors),
 *   so BFT chains report none; other chains get the beacon roots contract from Cancun on and the
 *   history, deposit, withdrawal and consolidation contracts from Prague on.
 */
import { bytesToHex, type Hex } from '../../crypto/bytes.ts';
import { forkIdAtHead, forkScheduleOf } from '../../p2p/fork-id.ts';
import { BLOCK_FORK_KEYS, TIME_FORK_KEYS, type Genesis } from '../../chain/genesis.ts';
import type { NodeApi } from '../node-api.ts';
import type { RpcMethodSpec } from '../registry.ts';
import { maxBlobGasOf, withBlockParams } from '../../execution/blob-fees.ts';
import { CONSOLIDATION_REQUEST_ADDRESS, HISTORY_STORAGE_ADDRESS, MAINNET_DEPOSIT_CONTRACT, WITHDRAWAL_REQUEST_ADDRESS } from '../../execution/system-calls.ts';

interface Milestone {
  name: string;
  value: number;
  by: 'block' | 'time';
}

const BLOCK_ORDER = ['chainstart', ...BLOCK_FORK_KEYS.map(([n]) => n)];
const TIME_ORDER = TIME_FORK_KEYS.map(([n]) => n);
const rank = (name: string) => (BLOCK_ORDER.includes(name) ? BLOCK_ORDER.indexOf(name) : BLOCK_ORDER.length + TIME_ORDER.indexOf(name));
const atLeast = (name: string, fork: string) => rank(name) >= rank(fork);

/** The forks the genesis schedules (Frontier at block 0 first), in activation order. */
export function milestones(genesis: Genesis): Milestone[] {
  const blocks = Object.entries(genesis.forkBlocks)
    .filter(([name]) => BLOCK_ORDER.includes(name))
    .map(([name, value]) => ({ name, value, by: 'block' as const }));
  const times = Object.entries(genesis.forkTimestamps)
    .filter(([name]) => TIME_ORDER.includes(name))
    .map(([name, value]) => ({ name, value, by: 'time' as const }));
  const order = (a: Milestone, b: Milestone) => a.value - b.value || rank(a.name) - rank(b.name);
  return [{ name: 'chainstart', value: 0, by: 'block' }, ...blocks.sort(order), ...times.sort(order)];
}

/** The EIP-2124 fork hash once `fork` is active: every block fork up to it, then the time forks up to it. */
export function forkIdAt(genesis: Genesis, genesisHash: string, fork: Milestone): string {
  const schedule = forkScheduleOf(genesisHash as Hex, genesis);
  // A block milestone: its block reached, no timestamp fork yet. A time milestone: every block fork passed.
  const head = fork.by === 'block' ? { number: BigInt(fork.value), timestamp: BigInt(genesis.timestamp) } : { number: 2n ** 64n, timestamp: BigInt(fork.value) };
  return bytesToHex(forkIdAtHead(schedule, head).hash);
}

const PRECOMPILES: Array<[string, number, string]> = [
  ['ECREC', 1, 'chainstart'],
  ['SHA256', 2, 'chainstart'],
  ['RIPEMD160', 3, 'chainstart'],
  ['ID', 4, 'chainstart'],
  ['MODEXP', 5, 'byzantium'],
  ['BN254_ADD', 6, 'byzantium'],
  ['BN254_MUL', 7, 'byzantium'],
  ['BN254_PAIRING', 8, 'byzantium'],
  ['BLAKE2F', 9, 'istanbul'],
  ['KZG_POINT_EVALUATION', 10, 'cancun'],
  ['BLS12_G1ADD', 0x0b, 'prague'],
  ['BLS12_G1MSM', 0x0c, 'prague'],
  ['BLS12_G2ADD', 0x0d, 'prague'],
  ['BLS12_G2MSM', 0x0e, 'prague'],
  ['BLS12_PAIRING_CHECK', 0x0f, 'prague'],
  ['BLS12_MAP_FP_TO_G1', 0x10, 'prague'],
  ['BLS12_MAP_FP2_TO_G2', 0x11, 'prague'],
  ['P256VERIFY', 0x100, 'osaka'],
];

const BLOB_GAS_PER_BLOB = 131_072n;

/** The fork's blob figures as its Common computes them (genesis blobSchedule over the defaults). */
function blobScheduleOf(api: NodeApi, fork: Milestone): { baseFeeUpdateFraction: number; max: number; target: number } {
  if (!atLeast(fork.name, 'cancun')) return { baseFeeUpdateFraction: 0, max: 6, target: 0 };
  const c = withBlockParams(api.node.common);
  c.setHardfork(fork.name);
  return {
    baseFeeUpdateFraction: Number(c.param('blobGasPriceUpdateFraction')),
    max: Number(maxBlobGasOf(c) / BLOB_GAS_PER_BLOB),
    target: Number(c.param('targetBlobGasPerBlock') / BLOB_GAS_PER_BLOB),
  };
}

function forkConfig(api: NodeApi, fork: Milestone): Record<string, unknown> {
  const genesis = api.node.config.genesis;
  const cancun = atLeast(fork.name, 'cancun');
  const precompiles = Object.fromEntries(
    PRECOMPILES.filter(([, , since]) => atLeast(fork.name, since))
      .map(([name, address]) => [name, `0x${address.toString(16).padStart(40, '0')}`] as const)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  const config: Record<string, unknown> = {
    activationTime: fork.value,
    blobSchedule: blobScheduleOf(api, fork),
    chainId: `0x${genesis.chainId.toString(16)}`,
    forkId: forkIdAt(genesis, api.node.genesisBlock().hash, fork),
    precompiles,
  };
  if (cancun && genesis.consensus === 'ethash') config.systemContracts = systemContractsOf(genesis, fork);
  return config;
}

/** The contracts a non-BFT chain's fork calls (node/execution/system-calls.ts), by EIP-7910 name. */
function systemContractsOf(genesis: Genesis, fork: Milestone): Record<string, Hex> {
  const contracts: Record<string, Hex> = { BEACON_ROOTS_ADDRESS: '0x000f3df6d732807ef1319fb7b8bb8522d0beac02' };
  if (atLeast(fork.name, 'prague'))
    Object.assign(contracts, {
      CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS: CONSOLIDATION_REQUEST_ADDRESS.toString(),
      DEPOSIT_CONTRACT_ADDRESS: genesis.depositContractAddress ?? MAINNET_DEPOSIT_CONTRACT,
      HISTORY_STORAGE_ADDRESS: HISTORY_STORAGE_ADDRESS.toString(),
      WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS: WITHDRAWAL_REQUEST_ADDRESS.toString(),
    });
  return contracts;
}

export function ethConfigMethods(api: NodeApi): RpcMethodSpec[] {
  return [
    {
      name: 'eth_config',
      group: 'ETH',
      handler: () => {
        const all = milestones(api.node.config.genesis);
        const nextNumber = api.headNumber() + 1;
        const nowSeconds = Math.floor(api.node.clock.nowMs() / 1000);
        const active = all.filter((m) => (m.by === 'block' ? m.value <= nextNumber : m.value <= nowSeconds));
        const current = active[active.length - 1];
        const next = all.find((m) => m.by === 'time' && m.value > nowSeconds);
        return {
          current: forkConfig(api, current),
          next: next ? forkConfig(api, next) : null,
          last: next ? forkConfig(api, all[all.length - 1]) : null,
        };
      },
    },
  ];
}

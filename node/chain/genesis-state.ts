/**
 * The genesis world state and block, built as Besu's GenesisState does: every alloc account
 * (nonce, balance, code, storage) in a fresh state trie; a header with that state root, empty
 * transactions/receipts/ommers, and the fork-dependent fields of the milestone active at genesis
 * (baseFeePerGas: the configured value, else 1 gwei; withdrawalsRoot = empty trie from Shanghai;
 * blobGasUsed / excessBlobGas / parentBeaconBlockRoot from Cancun; requestsHash from Prague).
 */
import { createBlock, type Block, type HeaderData } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { Address, createAccount } from '@ethereumjs/util';
import { hexToBytes } from '../crypto/bytes.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { createCommonFromGenesis } from './common.ts';
import { GenesisError, type Genesis } from './genesis.ts';

/** Besu's GenesisConfig.BASEFEE_AT_GENESIS_DEFAULT_VALUE. */
export const DEFAULT_GENESIS_BASE_FEE = 1_000_000_000n;

export function createGenesisStateManager(common?: Common): MerkleStateManager {
  return new MerkleStateManager({ common, caches: new Caches() });
}

/** Writes every alloc account and flushes; returns the state root. */
export async function writeGenesisState(stateManager: MerkleStateManager, genesis: Genesis): Promise<Uint8Array> {
  // Alloc order does not change the root; sort anyway so writes are reproducible.
  const addresses = [...genesis.alloc.keys()].sort();
  for (const hex of addresses) {
    const account = genesis.alloc.get(hex)!;
    const address = new Address(hexToBytes(hex));
    await stateManager.putAccount(address, createAccount({ nonce: account.nonce, balance: account.balance }));
    if (account.code !== undefined && account.code.length > 0) await stateManager.putCode(address, account.code);
    for (const [slot, value] of account.storage) await stateManager.putStorage(address, slot, value);
  }
  await stateManager.flush();
  return stateManager.getStateRoot();
}

export async function genesisStateRoot(genesis: Genesis): Promise<Uint8Array> {
  return writeGenesisState(createGenesisStateManager(createCommonFromGenesis(genesis)), genesis);
}

/** The genesis block. `stateRoot` may be passed when it is already known (e.g. after writeGenesisState). */
export async function createGenesisBlock(genesis: Genesis, common: Common, stateRoot?: Uint8Array): Promise<Block> {
  const root = stateRoot ?? (await genesisStateRoot(genesis));
  const atGenesis = common.copy();
  atGenesis.setHardforkBy({ blockNumber: 0n, timestamp: BigInt(genesis.timestamp) });
  const header: HeaderData = {
    parentHash: genesis.parentHash,
    coinbase: new Address(hexToBytes(genesis.coinbase)),
    stateRoot: root,
    difficulty: genesis.difficulty,
    number: 0n,
    gasLimit: genesis.gasLimit,
    gasUsed: 0n,
    timestamp: BigInt(genesis.timestamp),
    extraData: genesis.extraData,
    mixHash: genesis.mixHash,
    nonce: genesis.nonce,
  };
  if (atGenesis.isActivatedEIP(1559)) {
    header.baseFeePerGas = genesis.baseFeePerGas ?? DEFAULT_GENESIS_BASE_FEE;
  } else if (genesis.baseFeePerGas !== undefined) {
    throw new GenesisError('baseFeePerGas', 'is set but London is not active at genesis');
  }
  if (atGenesis.isActivatedEIP(4844)) {
    header.blobGasUsed = genesis.blobGasUsed ?? 0n;
    header.excessBlobGas = genesis.excessBlobGas ?? 0n;
  }
  if (atGenesis.isActivatedEIP(4788)) header.parentBeaconBlockRoot = genesis.parentBeaconBlockRoot ?? new Uint8Array(32);
  return createBlock({ header }, { common: atGenesis, setHardfork: true, skipConsensusFormatValidation: true });
}

/** keccak256 of the genesis header's RLP (for block 0 the raw extraData is hashed, also in QBFT). */
export async function genesisBlockHash(genesis: Genesis): Promise<Uint8Array> {
  const block = await createGenesisBlock(genesis, createCommonFromGenesis(genesis));
  return keccak256(block.header.serialize());
}

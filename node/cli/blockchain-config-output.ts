/**
 * The files of `operator generate-blockchain-config`, laid out as Besu lays them out:
 *   DIR/<genesis-file-name>
 *   DIR/keys/<0x address>/<public-key-file-name>    "0x" + 128 hex digits, no newline
 *   DIR/keys/<0x address>/<private-key-file-name>   "0x" + 64 hex digits, no newline (generated keys only)
 * DIR may be missing or an empty directory; a directory with anything in it is refused. No file
 * is overwritten.
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex } from '../crypto/bytes.ts';
import type { BlockchainConfig } from './blockchain-config.ts';
import { UsageError } from './usage-error.ts';

export interface OutputFileNames {
  genesis: string;
  privateKey: string;
  publicKey: string;
}

/** Besu's defaults (GenerateBlockchainConfig). */
export const DEFAULT_FILE_NAMES: OutputFileNames = { genesis: 'genesis.json', privateKey: 'key.priv', publicKey: 'key.pub' };

export const KEYS_DIRECTORY = 'keys';

const OPTION_OF: Record<keyof OutputFileNames, string> = {
  genesis: '--genesis-file-name',
  privateKey: '--private-key-file-name',
  publicKey: '--public-key-file-name',
};

export function checkFileNames(names: OutputFileNames): void {
  for (const [field, name] of Object.entries(names) as Array<[keyof OutputFileNames, string]>) {
    if (name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name))
      throw new UsageError(`${OPTION_OF[field]}: '${name}' must be a file name, without a directory`);
  }
  if (new Set([names.genesis, names.privateKey, names.publicKey]).size !== 3) throw new UsageError('Output file paths must be unique.');
  if (names.genesis === KEYS_DIRECTORY) throw new UsageError(`--genesis-file-name: '${KEYS_DIRECTORY}' is the name of the keys directory`);
}

/** Refuses a --to that holds anything, before any work is done. */
export function checkOutputDirectory(dir: string): void {
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory()) throw new UsageError(`--to ${dir}: exists and is not a directory`);
  if (readdirSync(dir).length > 0) throw new UsageError(`--to ${dir}: Output directory already exists (and is not empty)`);
}

function write(path: string, content: string, mode?: number): void {
  try {
    writeFileSync(path, content, { flag: 'wx', mode });
  } catch (err) {
    throw new UsageError(`cannot write ${path}: ${(err as Error).message}`);
  }
}

function makeDirectory(path: string, recursive = false): void {
  try {
    mkdirSync(path, { recursive });
  } catch (err) {
    throw new UsageError(`cannot create directory ${path}: ${(err as Error).message}`);
  }
}

/** Writes the keys, then the genesis file; returns the genesis file's path. */
export function writeBlockchainConfig(dir: string, config: BlockchainConfig, names: OutputFileNames): string {
  checkOutputDirectory(dir);
  makeDirectory(dir, true);
  const keysDir = join(dir, KEYS_DIRECTORY);
  makeDirectory(keysDir);
  for (const node of config.nodes) {
    const nodeDir = join(keysDir, node.address);
    makeDirectory(nodeDir);
    write(join(nodeDir, names.publicKey), bytesToHex(node.publicKey));
    if (node.privateKey) write(join(nodeDir, names.privateKey), bytesToHex(node.privateKey), 0o600);
  }
  const genesisFile = join(dir, names.genesis);
  write(genesisFile, config.genesisText);
  return genesisFile;
}

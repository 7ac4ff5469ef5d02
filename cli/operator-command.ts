/**
 * `qbft-lab operator generate-blockchain-config --config-file F --to DIR`: Besu's command of the
 * same name (the "Create a private network using QBFT" tutorial's step 3). Writes DIR/genesis.json
 * with the validators in extraData and DIR/keys/<address>/ with each node's key files.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { UsageError } from '../node/cli/usage-error.ts';
import { BlockchainConfigError, buildBlockchainConfig, parseBlockchainConfig } from '../node/cli/blockchain-config.ts';
import { checkFileNames, checkOutputDirectory, DEFAULT_FILE_NAMES, KEYS_DIRECTORY, writeBlockchainConfig, type OutputFileNames } from '../node/cli/blockchain-config-output.ts';
import type { RandomBytes } from '../node/cli/validator-keys.ts';
import type { Io } from './main.ts';
import { OPTIONS, type Parse } from './command-options.ts';

/** Larger than any genesis a private network needs; bounds what is read into memory. */
export const MAX_CONFIG_FILE_BYTES = 64 * 1024 * 1024;

/** Key material comes from the operating system's CSPRNG. */
const secureRandom: RandomBytes = (byteCount) => new Uint8Array(randomBytes(byteCount));

function readConfigFile(file: string): string {
  try {
    const size = statSync(file).size;
    if (size > MAX_CONFIG_FILE_BYTES) throw new UsageError(`--config-file ${file}: ${size} bytes is more than the ${MAX_CONFIG_FILE_BYTES} allowed`);
    return readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--config-file ${file}: cannot be read: ${(err as Error).message}`);
  }
}

export async function operatorCommand(args: string[], io: Io, parse: Parse, random: RandomBytes = secureRandom): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'generate-blockchain-config') throw new UsageError(`operator: expected 'generate-blockchain-config', got '${sub ?? ''}'`);
  const { values, positionals } = parse(rest, OPTIONS['operator generate-blockchain-config']);
  if (positionals.length > 0) throw new UsageError(`operator generate-blockchain-config: unexpected argument '${positionals[0]}'`);
  const configFile = values['config-file'] as string | undefined;
  const to = values.to as string | undefined;
  const missing = [configFile === undefined && "'--config-file=<FILE>'", to === undefined && "'--to=<DIRECTORY>'"].filter((m) => m !== false);
  if (missing.length > 0) throw new UsageError(`Missing required option${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`);
  const names: OutputFileNames = {
    genesis: (values['genesis-file-name'] as string | undefined) ?? DEFAULT_FILE_NAMES.genesis,
    privateKey: (values['private-key-file-name'] as string | undefined) ?? DEFAULT_FILE_NAMES.privateKey,
    publicKey: (values['public-key-file-name'] as string | undefined) ?? DEFAULT_FILE_NAMES.publicKey,
  };
  checkFileNames(names);
  checkOutputDirectory(to!);
  let config;
  try {
    config = buildBlockchainConfig(parseBlockchainConfig(readConfigFile(configFile!)), random);
  } catch (err) {
    if (err instanceof BlockchainConfigError) throw new UsageError(`--config-file ${configFile}: ${err.message}`);
    throw err;
  }
  const genesisFile = writeBlockchainConfig(to!, config, names);
  const kind = config.consensus === 'qbft' ? 'QBFT' : 'IBFT 2.0';
  io.out(`${genesisFile}: ${kind} genesis with ${config.nodes.length} validator${config.nodes.length === 1 ? '' : 's'} in extraData`);
  for (const node of config.nodes) {
    const files = node.privateKey ? `${names.privateKey}, ${names.publicKey}` : names.publicKey;
    io.out(`  ${node.address}  ${KEYS_DIRECTORY}/${node.address}/{${files}}`);
  }
  if (config.consensus === 'ibft2') io.out("note: this IBFT 2.0 genesis is for Besu nodes; qbft-lab's node runs QBFT only and cannot start from it");
  return 0;
}

/** Reading a genesis file from disk (live node and CLI only: the simulator never reads files). */
import { readFileSync } from 'node:fs';
import { GenesisError, parseGenesis, type Genesis } from '../chain/genesis.ts';

export function loadGenesisFile(path: string): Genesis {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new GenesisError('(file)', `cannot be read: ${(err as Error).message}`);
  }
  return parseGenesis(text);
}

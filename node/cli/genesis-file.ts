/** Reading a genesis file from disk (live node and CLI only: the simulator never reads files). */
import { readFileSync } from 'node:fs';
import { GenesisError, readGenesis, type Genesis, type GenesisReading } from '../chain/genesis.ts';

export function loadGenesisFile(path: string): Genesis {
  return readGenesisFile(path).genesis;
}

/** The genesis in the file and the warnings about it (see readGenesis). */
export function readGenesisFile(path: string): GenesisReading {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new GenesisError('(file)', `cannot be read: ${(err as Error).message}`);
  }
  return readGenesis(text);
}

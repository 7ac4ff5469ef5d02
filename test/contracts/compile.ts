/**
 * Compiles the Solidity sources of test/contracts with the `solc` npm package (solc-js, the
 * compiler built to WebAssembly: no native binary, no download) through its standard JSON
 * interface, once per process: the first call loads the compiler (~0.5 s) and compiles (~0.5 s),
 * later calls return the cached result.
 *
 * The suite's contracts are compiled for London, the newest fork the simulator's genesis enables
 * (its recorded trace hashes assume it), so they run on every chain the tests start; `qbft-lab
 * network` enables the newest fork the node runs (see compileFor and test/newest-fork.test.ts).
 */
import { readFileSync } from 'node:fs';
import solc from 'solc';
import type { Abi } from 'viem';

export const EVM_VERSION = 'london';
const SOURCES = ['Store.sol'];

export interface CompiledContract {
  abi: Abi;
  /** Init code (constructor), 0x-prefixed. */
  bytecode: `0x${string}`;
  /** Runtime code as eth_getCode returns it after deployment, 0x-prefixed. */
  deployedBytecode: `0x${string}`;
}

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
}

let compiled: Map<string, CompiledContract> | undefined;

/** Every contract of the test sources by name ("Store"), compiled on first use. */
export function compileContracts(): Map<string, CompiledContract> {
  if (compiled) return compiled;
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(SOURCES.map((name) => [name, { content: readFileSync(new URL(name, import.meta.url), 'utf8') }])),
    settings: {
      evmVersion: EVM_VERSION,
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc ${solc.version()}:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const result = new Map<string, CompiledContract>();
  for (const file of Object.values(output.contracts ?? {}))
    for (const [name, c] of Object.entries(file))
      result.set(name, { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, deployedBytecode: `0x${c.evm.deployedBytecode.object}` });
  compiled = result;
  return result;
}

/**
 * One contract of one source file compiled for `evmVersion` (solc's names: 'london', 'cancun',
 * 'osaka', ...), as a project compiled for a newer target than the suite's pinned London would be.
 */
export function compileFor(file: string, name: string, evmVersion: string): CompiledContract {
  const input = {
    language: 'Solidity',
    sources: { [file]: { content: readFileSync(new URL(file, import.meta.url), 'utf8') } },
    settings: { evmVersion, optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc ${solc.version()}:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const c = output.contracts?.[file]?.[name];
  if (!c) throw new Error(`no contract ${name} in ${file}`);
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, deployedBytecode: `0x${c.evm.deployedBytecode.object}` };
}

export function compileContract(name: string): CompiledContract {
  const c = compileContracts().get(name);
  if (!c) throw new Error(`no contract ${name} in test/contracts`);
  return c;
}

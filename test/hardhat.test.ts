/**
 * A Hardhat 2 project compiled for `cancun`, and one for `osaka`, deploys and calls a contract on
 * the network `npm start` runs (qbft-lab network, one validator process here for speed): Hardhat
 * compiles with solc-js from npm (nothing downloaded), signs locally and sends raw transactions.
 */
import test from 'ava';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNetwork } from '../cli/network-command.ts';
import { keyHex } from './client-kit.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HARDHAT = join(ROOT, 'node_modules', 'hardhat', 'internal', 'cli', 'bootstrap.js');

function hardhat(cwd: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [HARDHAT, ...args], { cwd, env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', ...env }, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') reject(new Error(`hardhat ${args.join(' ')}: ${err.message}\n${stderr}`));
      else resolve({ code: err ? (err.code as number) : 0, stdout, stderr });
    });
  });
}

/** The project in a scratch folder inside the repository (so that hardhat and solc resolve), with one source. */
function project(t: { teardown(f: () => void): void }, source: string): string {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.tmp', 'hardhat-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(ROOT, 'test', 'hardhat-project'), dir, { recursive: true });
  mkdirSync(join(dir, 'contracts'));
  cpSync(join(ROOT, 'test', 'contracts', source), join(dir, 'contracts', source));
  return dir;
}

test.serial('Hardhat projects compiled for cancun and for osaka deploy and call a contract on the generated network', async (t) => {
  const net = await startNetwork({ validators: '1', 'data-path': mkdtempSync(join(tmpdir(), 'qbft-lab-hardhat-')), 'base-port': '0' }, Date.now());
  try {
    const env = { QBFT_URL: `http://127.0.0.1:${net.httpPorts[0]}`, DEPLOYER_KEY: keyHex(0) };
    for (const [evmVersion, source, answer] of [
      ['cancun', 'TransientCounter.sol', '1'],
      ['osaka', 'LeadingZeros.sol', '255'],
    ] as const) {
      const dir = project(t, source);
      const compiled = await hardhat(dir, ['compile'], { ...env, EVM_VERSION: evmVersion });
      t.is(compiled.code, 0, compiled.stdout + compiled.stderr);
      const run = await hardhat(dir, ['run', 'scripts/deploy-and-call.cjs', '--network', 'qbft'], { ...env, EVM_VERSION: evmVersion });
      t.is(run.code, 0, run.stdout + run.stderr);
      const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
      t.deepEqual([result.evmVersion, result.deployStatus, result.answer], [evmVersion, '0x1', answer], run.stdout);
    }
  } finally {
    await net.close();
  }
});

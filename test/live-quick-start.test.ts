/**
 * The README's quick start, `npm start`, as package.json runs it (its own data path added), while
 * another program holds the default ports 8545 and 30303: the network moves to the next free
 * ports and says which, an idle chain makes a block only at the empty-block period, and a
 * transaction sent to it is in the next block, before that period is over (a dApp developer's
 * wait). Four live node processes.
 */
import test from 'ava';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Wallet } from 'ethers';
import { BESU_TEST_ACCOUNTS } from '../sim/keys.ts';
import { rpc, until, untilValue } from './process-kit.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Holds the port when it is free; when another program already holds it, the test's premise holds anyway. */
async function occupy(port: number): Promise<Server | undefined> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

interface Block {
  number: number;
  timestamp: number;
  transactions: string[];
}

async function block(port: number, tag: number | 'latest'): Promise<Block> {
  const b = await rpc(port, 'eth_getBlockByNumber', [typeof tag === 'number' ? `0x${tag.toString(16)}` : tag, false]);
  return { number: Number(BigInt(b.number)), timestamp: Number(BigInt(b.timestamp)), transactions: b.transactions };
}

test('npm start with 8545 and 30303 taken: the next free ports, printed; an idle chain waits the empty-block period; a transaction is in the next block', async (t) => {
  t.timeout(240_000);
  const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const [command, ...args] = script.split(' ');
  t.is(command, 'node');
  t.true(args.includes('--empty-block-period'), script);
  const held = [await occupy(8545), await occupy(30303)];
  const child = spawn(process.execPath, [...args, '--data-path', mkdtempSync(join(tmpdir(), 'qbft-lab-quick-start-'))], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await until('the network to print its funded accounts', async () => stdout.includes('Funded accounts') || child.exitCode !== null, 120_000);
    t.is(child.exitCode, null, `${stdout}\n${stderr}`);
    t.regex(stdout, /^note: port 8545 \(v0 JSON-RPC HTTP\) is in use by another program, so --base-port is \d+ instead of 8545 \(pass --base-port P to choose\)$/m);
    t.regex(stdout, /^note: port 30303 \(v0 P2P \(RLPx\)\) is in use by another program, so --p2p-base-port is \d+ instead of 30303/m);
    t.regex(stdout, /^Blocks every 1 s while transactions wait; with none waiting, every 10 s/m);
    const httpPort = Number(/^\s+v0\s+0x[0-9a-f]{40}\s+pid \d+\s+http:\/\/127\.0\.0\.1:(\d+)/m.exec(stdout)?.[1]);
    t.not(httpPort, 8545);

    const genesis = await block(httpPort, 0);
    const first = await untilValue('block 1', async () => ((await block(httpPort, 'latest')).number >= 1 ? block(httpPort, 1) : undefined), 120_000);
    t.true(first.timestamp - genesis.timestamp >= 10, `an idle chain's block 1 comes at the empty-block period: ${first.timestamp - genesis.timestamp} s after genesis`);
    t.deepEqual(first.transactions, []);

    // Sent just after a block, with most of the 10 s empty-block period ahead.
    const head = await block(httpPort, 'latest');
    const account = BESU_TEST_ACCOUNTS[0]!;
    const wallet = new Wallet(`0x${Buffer.from(account.privateKey).toString('hex')}`);
    const raw = await wallet.signTransaction({ type: 2, chainId: 1337, nonce: 0, to: BESU_TEST_ACCOUNTS[1]!.address, value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 0n });
    const hash = await rpc(httpPort, 'eth_sendRawTransaction', [raw]);
    const receipt = await untilValue('the receipt', async () => (await rpc(httpPort, 'eth_getTransactionReceipt', [hash])) ?? undefined, 60_000);
    const mined = await block(httpPort, Number(BigInt(receipt.blockNumber)));
    t.is(mined.number, head.number + 1, 'the next block carries it');
    t.true(mined.timestamp - head.timestamp < 10, `it came ${mined.timestamp - head.timestamp} s after the previous block, before the empty-block period was over`);
  } finally {
    child.kill('SIGTERM');
    await exited;
    for (const server of held) server?.close();
  }
});

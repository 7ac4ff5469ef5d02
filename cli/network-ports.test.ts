/**
 * `network`'s ports, checked before any node starts: a default range another program holds moves
 * to the next free one and says so; a port the user chose that is taken is one line, exit 2.
 * The "other program" is a server this test holds; no node process is started.
 */
import test from 'ava';
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../node/cli/usage-error.ts';
import { captureIo } from './capture-io.ts';
import { main } from './main.ts';
import { choosePorts } from './network-ports.ts';

async function holdTcp(port = 0): Promise<Server & { port: number }> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return Object.assign(server, { port: (server.address() as AddressInfo).port });
}

async function holdUdp(): Promise<Socket & { port: number }> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return Object.assign(socket, { port: socket.address().port });
}

const defaults = { n: 2, baseExplicit: false, p2pBasePort: 0, p2pExplicit: false, metrics: false };

test('a default RPC range another program holds moves to the next free range, and the note names the taken port and the option', async (t) => {
  const held = await holdTcp();
  try {
    // held.port is the default base here: v0's JSON-RPC HTTP port.
    const plan = await choosePorts({ ...defaults, basePort: held.port });
    // Two nodes use base .. base + 12: the next range starts 20 higher (or 40, ... when another program holds that one too).
    t.true(plan.basePort > held.port && (plan.basePort - held.port) % 20 === 0, String(plan.basePort));
    t.deepEqual(plan.notes, [`port ${held.port} (v0 JSON-RPC HTTP) is in use by another program, so --base-port is ${plan.basePort} instead of ${held.port} (pass --base-port P to choose)`]);
  } finally {
    held.close();
  }
});

test("a taken port inside the range (v1's WebSocket) moves the range too; a free range gives no note", async (t) => {
  const probe = await holdTcp();
  probe.close();
  const { basePort: base, notes } = await choosePorts({ ...defaults, basePort: probe.port });
  t.deepEqual(await choosePorts({ ...defaults, basePort: base }), { basePort: base, p2pBasePort: 0, notes: [] }, notes.join());
  const held = await holdTcp(base + 11); // v1's WebSocket
  try {
    const plan = await choosePorts({ ...defaults, basePort: base });
    t.true(plan.basePort > base && (plan.basePort - base) % 20 === 0, String(plan.basePort));
    t.regex(plan.notes[0]!, new RegExp(`^port ${held.port} \\(v1 JSON-RPC WebSocket\\) is in use`));
  } finally {
    held.close();
  }
});

test('a default P2P range whose discovery (UDP) port is held moves by one port per node', async (t) => {
  const held = await holdUdp();
  try {
    const plan = await choosePorts({ ...defaults, basePort: 0, p2pBasePort: held.port });
    t.true(plan.p2pBasePort > held.port && (plan.p2pBasePort - held.port) % 2 === 0, String(plan.p2pBasePort));
    t.regex(plan.notes[0]!, new RegExp(`^port ${held.port} \\(v0 discovery \\(UDP\\)\\) is in use by another program, so --p2p-base-port is ${plan.p2pBasePort}`));
  } finally {
    held.close();
  }
});

test('a port the user chose that is taken: a usage error naming the option, the port and the way out', async (t) => {
  const held = await holdTcp();
  try {
    const err = await t.throwsAsync(choosePorts({ ...defaults, basePort: 0, p2pBasePort: held.port - 1, p2pExplicit: true }), { instanceOf: UsageError });
    t.is(err!.message, `network: --p2p-base-port ${held.port - 1}: port ${held.port} (v1 P2P (RLPx)) is in use by another program; choose another --p2p-base-port, or leave it out to take the next free ports`);
  } finally {
    held.close();
  }
});

test('qbft-lab network --base-port P with P taken: one line on stderr, exit 2, no node started, no stack trace', async (t) => {
  const held = await holdTcp();
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-ports-'));
  try {
    const io = captureIo();
    t.is(await main(['network', '--validators', '1', '--data-path', dataPath, '--base-port', String(held.port), '--p2p-base-port', '0', '--duration', '1'], io), 2);
    t.is(io.stdout, '');
    t.is(io.stderr.trim().split('\n').length, 1, io.stderr);
    t.true(io.stderr.includes(`--base-port ${held.port}: port ${held.port} (v0 JSON-RPC HTTP) is in use by another program; choose another --base-port`), io.stderr);
    t.notRegex(io.stderr, /\bat .*\.ts:\d+/);
  } finally {
    held.close();
  }
});

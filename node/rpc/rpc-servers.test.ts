import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { MethodRegistry } from './registry.ts';
import { startRpcServers } from './rpc-servers.ts';

function batch(n: number): string {
  return JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'web3_clientVersion', params: [] })));
}

test('WebSocket and IPC batches are held to 1024 requests, as HTTP batches are', async (t) => {
  const registry = new MethodRegistry();
  registry.registerAll([{ name: 'web3_clientVersion', group: 'WEB3', handler: () => 'test' }]);
  const ipcPath = join(mkdtempSync(join(tmpdir(), 'qbft-lab-servers-')), 'test.ipc');
  const servers = await startRpcServers({
    registry,
    ws: { host: '127.0.0.1', port: 0, apis: ['WEB3'], maxFrameSize: 1024 * 1024, maxActiveConnections: 10 },
    ipc: { path: ipcPath, apis: ['WEB3'] },
    hostAllowlist: ['*'],
    health: { liveness: () => true, readiness: () => true },
  });
  try {
    const ws = new WebSocket(`ws://127.0.0.1:${servers.wsPort}`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const ask = (text: string): Promise<any> => new Promise((resolve) => {
      ws.once('message', (data) => resolve(JSON.parse(String(data))));
      ws.send(text);
    });
    t.is((await ask(batch(1024))).length, 1024);
    t.is((await ask(batch(1025))).error?.code, -32005);
    ws.close();

    const ipcAsk = (text: string): Promise<any> => new Promise((resolve, reject) => {
      const socket = connect(ipcPath);
      let got = '';
      socket.on('data', (d) => {
        got += d.toString();
        try {
          resolve(JSON.parse(got));
          socket.end();
        } catch {
          // not complete yet
        }
      });
      socket.once('error', reject);
      socket.write(text);
    });
    t.is((await ipcAsk(batch(1024))).length, 1024);
    t.is((await ipcAsk(batch(1025))).error?.code, -32005);
  } finally {
    await servers.close();
  }
});

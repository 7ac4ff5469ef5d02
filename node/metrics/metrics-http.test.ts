import test from 'ava';
import { request } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { acceptsGzip, HEALTHY_BODY, METRICS_LISTENER, startMetricsHttp, type MetricsHttpOptions } from './metrics-http.ts';
import { ListenError } from '../rpc/transports/listen.ts';
import { asConfigError } from '../cli/config-error.ts';
import { UsageError } from '../cli/usage-error.ts';
import { parseExposition } from './exposition-parse.ts';

const TEXT = '# TYPE ethereum_blockchain_height gauge\nethereum_blockchain_height 7\n# TYPE qbftlab_qbft_round_changes_total counter\nqbftlab_qbft_round_changes_total 2\n';

function start(over: Partial<MetricsHttpOptions> = {}) {
  const names = ['ethereum_blockchain_height', 'qbftlab_qbft_round_changes_total'];
  return startMetricsHttp({
    host: '127.0.0.1',
    port: 0,
    hostAllowlist: ['localhost', '127.0.0.1'],
    scrape: (include) => TEXT.split(/(?=# TYPE)/).filter((_, i) => include(names[i])).join(''),
    onError: () => {},
    ...over,
  });
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host: `localhost:${port}`, ...headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** What the server writes before it closes the connection; '(still open)' after `giveUpMs`. */
function raw(port: number, text: string, giveUpMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.write(text));
    let out = '';
    const timer = setTimeout(() => {
      resolve('(still open)');
      s.destroy();
    }, giveUpMs);
    s.on('data', (d) => (out += d.toString('latin1')));
    s.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    s.on('error', reject);
  });
}

test('GET /metrics answers the text format 0.0.4 with its content type', async (t) => {
  const server = await start();
  try {
    const r = await get(server.port, '/metrics');
    t.is(r.status, 200);
    t.is(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    t.is(r.body.toString(), TEXT);
    t.is(r.headers['content-length'], String(Buffer.byteLength(TEXT)));
    t.is(parseExposition(r.body.toString()).get('ethereum_blockchain_height')!.samples[0].value, 7);
  } finally {
    await server.close();
  }
});

test('the host allowlist guards every path: 403 with no body for another or no Host; * lets all in', async (t) => {
  const server = await start();
  try {
    for (const path of ['/metrics', '/', '/-/healthy', '/nope']) {
      const r = await get(server.port, path, { host: 'evil.example:9545' });
      t.is(r.status, 403, path);
      t.is(r.body.length, 0, path);
    }
    t.regex(await raw(server.port, 'GET /metrics HTTP/1.0\r\n\r\n'), /^HTTP\/1\.1 403 /, 'no Host header');
    t.is((await get(server.port, '/metrics', { host: 'LOCALHOST' })).status, 200, 'case-insensitive');
  } finally {
    await server.close();
  }
  const open = await start({ hostAllowlist: ['*'] });
  try {
    t.is((await get(open.port, '/metrics', { host: 'evil.example' })).status, 200);
    t.regex(await raw(open.port, 'GET /metrics HTTP/1.0\r\n\r\n'), /^HTTP\/1\.1 200 /);
  } finally {
    await open.close();
  }
});

test('paths route as in Besu: /metrics prefix, /-/healthy, / page, 404 with no body elsewhere', async (t) => {
  const server = await start();
  try {
    for (const path of ['/metrics/', '/metrics/anything', '/metricsfoo', '/metrics?x=1']) t.is((await get(server.port, path)).body.toString(), TEXT, path);
    const healthy = await get(server.port, '/-/healthy');
    t.is(healthy.status, 200);
    t.is(healthy.body.toString(), HEALTHY_BODY);
    const page = await get(server.port, '/');
    t.is(page.status, 200);
    t.regex(String(page.headers['content-type']), /^text\/html/);
    t.regex(page.body.toString(), /href="metrics"/);
    for (const path of ['/index.html', '/metric', '/api/v1/metrics']) {
      const r = await get(server.port, path);
      t.is(r.status, 404, path);
      t.is(r.body.length, 0, path);
    }
  } finally {
    await server.close();
  }
});

test('HEAD has the headers and no body; other methods are answered and the connection closed', async (t) => {
  const server = await start();
  try {
    const head = await get(server.port, '/metrics', {}, 'HEAD');
    t.is(head.status, 200);
    t.is(head.headers['content-length'], String(Buffer.byteLength(TEXT)));
    t.is(head.body.length, 0);
    const post = await get(server.port, '/metrics', {}, 'POST');
    t.is(post.body.toString(), TEXT);
    t.is(post.headers.connection, 'close');
  } finally {
    await server.close();
  }
});

test('gzip when Accept-Encoding lists it, as client_java decides', async (t) => {
  t.true(acceptsGzip('deflate, GZIP'));
  t.false(acceptsGzip('gzip;q=1'), 'client_java compares whole entries');
  t.false(acceptsGzip(undefined));
  const server = await start();
  try {
    const r = await get(server.port, '/metrics', { 'accept-encoding': 'gzip' });
    t.is(r.headers['content-encoding'], 'gzip');
    t.is(gunzipSync(r.body).toString(), TEXT);
  } finally {
    await server.close();
  }
});

test('name[] keeps only the named families; a counter also answers to its name without _total', async (t) => {
  const server = await start();
  try {
    const one = await get(server.port, '/metrics?name[]=ethereum_blockchain_height');
    t.deepEqual([...parseExposition(one.body.toString()).keys()], ['ethereum_blockchain_height']);
    const counter = await get(server.port, `/metrics?${encodeURIComponent('name[]')}=qbftlab_qbft_round_changes`);
    t.deepEqual([...parseExposition(counter.body.toString()).keys()], ['qbftlab_qbft_round_changes_total']);
  } finally {
    await server.close();
  }
});

test('a scrape that throws is a 500 without details', async (t) => {
  const errors: unknown[] = [];
  const server = await start({
    scrape: () => {
      throw new Error('secret detail');
    },
    onError: (e) => errors.push(e),
  });
  try {
    const r = await get(server.port, '/metrics');
    t.is(r.status, 500);
    t.notRegex(r.body.toString(), /secret/);
    t.is(errors.length, 1);
  } finally {
    await server.close();
  }
});

test('connections beyond the cap are closed at once', async (t) => {
  const server = await start({ maxConnections: 2 });
  const sockets: Socket[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const s = connect(server.port, '127.0.0.1');
      await new Promise((r) => s.once('connect', r));
      sockets.push(s);
    }
    await new Promise((r) => setTimeout(r, 50));
    const extra = await raw(server.port, `GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    t.is(extra, '', 'the third connection is closed without an answer');
    sockets.pop()!.destroy();
    await new Promise((r) => setTimeout(r, 50));
    t.is((await get(server.port, '/metrics')).status, 200, 'a freed slot serves again');
  } finally {
    for (const s of sockets) s.destroy();
    await server.close();
  }
});

test('a request that does not arrive within the timeout is dropped', async (t) => {
  const server = await start({ requestTimeoutMs: 300 });
  try {
    const started = Date.now();
    const reply = await raw(server.port, 'GET /metrics HTTP/1.1\r\nHost: localhost\r\n', 3000);
    t.regex(reply, /^HTTP\/1\.1 408 /);
    t.true(Date.now() - started >= 250, `closed after ${Date.now() - started} ms`);
  } finally {
    await server.close();
  }
});

test('a port in use is a ListenError that names --metrics-port', async (t) => {
  const busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
  const port = (busy.address() as AddressInfo).port;
  try {
    const err = await t.throwsAsync(start({ port }), { instanceOf: ListenError });
    t.is(err.listener, METRICS_LISTENER);
    const usage = asConfigError(err);
    t.true(usage instanceof UsageError);
    t.regex((usage as Error).message, new RegExp(`^--metrics-port: Failed to bind Metrics listener to 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
  } finally {
    busy.close();
  }
});

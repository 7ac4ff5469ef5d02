import test from 'ava';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { createGraphqlHandler } from '../graphql/handler.ts';
import type { NodeApi } from '../node-api.ts';
import { startGraphqlHttp, type GraphqlHttpOptions, type GraphqlRequest } from './graphql-http.ts';

async function serve() {
  const seen: GraphqlRequest[] = [];
  const server = await startGraphqlHttp({
    host: '127.0.0.1',
    port: 0,
    hostAllowlist: ['localhost', '127.0.0.1'],
    handle: async (request) => {
      seen.push(request);
      return { status: 200, body: '{"data":{}}', contentType: 'application/json; charset=utf-8' };
    },
  });
  return { server, seen, url: `http://127.0.0.1:${server.port}` };
}

test('/graphql and /graphql/ are the endpoint; / redirects there with 308; other paths 404', async (t) => {
  const { server, seen, url } = await serve();
  try {
    const plain = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/graphql' }, body: '{ chainID }' });
    t.is(plain.status, 200);
    const slash = await fetch(`${url}/graphql/?query=%7BchainID%7D`);
    t.is(slash.status, 200);
    t.deepEqual(seen.map((r) => [r.method, r.body ?? r.query?.query]), [
      ['POST', '{ chainID }'],
      ['GET', '{chainID}'],
    ]);
    for (const method of ['GET', 'POST']) {
      const root = await fetch(`${url}/`, { method, redirect: 'manual' });
      t.is(root.status, 308);
      t.is(root.headers.get('location'), '/graphql');
    }
    t.is((await fetch(`${url}/other`)).status, 404);
    t.is((await fetch(`${url}/graphql`, { method: 'PUT' })).status, 405);
  } finally {
    await server.close();
  }
});

async function serveWith(opts: Partial<GraphqlHttpOptions>) {
  const server = await startGraphqlHttp({
    host: '127.0.0.1',
    port: 0,
    hostAllowlist: ['localhost', '127.0.0.1'],
    handle: async () => ({ status: 200, body: '{"data":{}}', contentType: 'application/json; charset=utf-8' }),
    ...opts,
  });
  return { server, port: server.port };
}

interface RawAnswer {
  status: number;
  statusMessage: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** node:http rather than fetch: fetch forbids setting Origin and Host, and hides the status line. */
function raw(port: number, opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string }): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path ?? '/graphql', headers: opts.headers ?? {}, agent: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, statusMessage: res.statusMessage!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const GET_QUERY = '/graphql?query=%7BchainID%7D';

test('a foreign Origin is refused on POST and on GET, before the handler (403 "CORS Rejected - Invalid origin")', async (t) => {
  let handled = 0;
  const { server, port } = await serveWith({ corsOrigins: ['http://foo.io'], handle: async () => (handled++, { status: 200, body: '{"data":{}}', contentType: 'application/json' }) });
  try {
    const post = await raw(port, { method: 'POST', headers: { Origin: 'http://evil.example', 'Content-Type': 'application/graphql' }, body: '{ chainID }' });
    t.is(post.status, 403);
    t.is(post.statusMessage, 'CORS Rejected - Invalid origin');
    t.is(post.body, 'CORS Rejected - Invalid origin');
    t.is(post.headers['access-control-allow-origin'], undefined);
    const get = await raw(port, { path: GET_QUERY, headers: { Origin: 'http://evil.example' } });
    t.is(get.status, 403);
    t.is(get.body, 'CORS Rejected - Invalid origin');
    // a preflight from a foreign page is refused too, and a look-alike is no match (whole-Origin regex)
    t.is((await raw(port, { method: 'OPTIONS', headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' } })).status, 403);
    t.is((await raw(port, { path: GET_QUERY, headers: { Origin: 'http://foo.io.evil.example' } })).status, 403);
    t.is(handled, 0);
  } finally {
    await server.close();
  }
});

test('no --graphql-http-cors-origins (Besu default): any Origin is refused; no Origin is served with Vary: origin', async (t) => {
  const { server, port } = await serveWith({});
  try {
    const withOrigin = await raw(port, { path: GET_QUERY, headers: { Origin: 'http://localhost:3000' } });
    t.is(withOrigin.status, 403);
    const without = await raw(port, { path: GET_QUERY });
    t.is(without.status, 200);
    t.is(without.headers['vary'], 'origin');
    t.is(without.headers['access-control-allow-origin'], undefined);
  } finally {
    await server.close();
  }
});

test('an allowed Origin is served (echoed in Access-Control-Allow-Origin) on GET and POST; its preflight answers 204', async (t) => {
  const { server, port } = await serveWith({ corsOrigins: ['http://foo.io', 'http://bar.me'] });
  try {
    const get = await raw(port, { path: GET_QUERY, headers: { Origin: 'http://bar.me' } });
    t.is(get.status, 200);
    t.is(get.headers['access-control-allow-origin'], 'http://bar.me');
    t.is(get.headers['vary'], 'origin');
    const post = await raw(port, { method: 'POST', headers: { Origin: 'http://foo.io', 'Content-Type': 'application/graphql' }, body: '{ chainID }' });
    t.is(post.status, 200);
    t.is(post.headers['access-control-allow-origin'], 'http://foo.io');
    const pre = await raw(port, { method: 'OPTIONS', headers: { Origin: 'http://foo.io', 'Access-Control-Request-Method': 'POST' } });
    t.is(pre.status, 204);
    t.is(pre.headers['access-control-allow-origin'], 'http://foo.io');
    t.is(pre.headers['access-control-allow-headers'], '*,content-type');
    const star = await serveWith({ corsOrigins: ['*'] });
    try {
      t.is((await raw(star.port, { path: GET_QUERY, headers: { Origin: 'http://anything.example' } })).status, 200);
    } finally {
      await star.server.close();
    }
  } finally {
    await server.close();
  }
});

test('Host check first, as Besu: a Host not in the allowlist or no Host at all → 403 JSON, even with an allowed Origin', async (t) => {
  const { server, port } = await serveWith({ corsOrigins: ['*'] });
  try {
    const rebound = await raw(port, { path: GET_QUERY, headers: { Host: 'evil.example', Origin: 'http://evil.example' } });
    t.is(rebound.status, 403);
    t.is(rebound.body, '{"message":"Host not authorized."}');
    t.is(rebound.headers['content-type'], 'application/json; charset=utf-8');
    t.is((await raw(port, { path: GET_QUERY, headers: { Host: 'LOCALHOST:8547' } })).status, 200);
    // no Host header: Besu refuses it with the same 403 (no authority); Node's own answer would be 400
    const noHost = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /graphql?query=%7BchainID%7D HTTP/1.1\r\nConnection: close\r\n\r\n'));
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    t.regex(noHost, /^HTTP\/1\.1 403 /);
    t.true(noHost.endsWith('{"message":"Host not authorized."}'));
  } finally {
    await server.close();
  }
});

/** The real GraphQL handler over a NodeApi that only records transactions sent to it. */
function mutationRecorder() {
  const sent: string[] = [];
  const api = {
    chainId: 1337n,
    pause: () => undefined,
    sendRawTransaction: async (raw: Uint8Array) => {
      sent.push(Buffer.from(raw).toString('hex'));
      return `0x${'ab'.repeat(32)}`;
    },
  } as unknown as NodeApi;
  return { sent, handle: createGraphqlHandler(api) };
}

const MUTATION = 'mutation { sendRawTransaction(data: "0x01") }';

test('a mutation over GET is refused (405, graphql-java error shape) and nothing is sent; over POST it runs', async (t) => {
  const { sent, handle } = mutationRecorder();
  const { server, port } = await serveWith({ handle });
  try {
    const get = await raw(port, { path: `/graphql?query=${encodeURIComponent(MUTATION)}` });
    t.is(get.status, 405);
    t.is(get.headers['allow'], 'POST');
    t.deepEqual(JSON.parse(get.body), {
      errors: [{ message: 'Mutations are not allowed over GET: send them with POST', extensions: { classification: 'OperationNotSupported' }, locations: [{ line: 1, column: 1 }] }],
    });
    // picked by operationName out of a document that also has a query
    const both = `query q { chainID } mutation m { sendRawTransaction(data: "0x02") }`;
    const named = await raw(port, { path: `/graphql?query=${encodeURIComponent(both)}&operationName=m` });
    t.is(named.status, 405);
    const query = await raw(port, { path: `/graphql?query=${encodeURIComponent(both)}&operationName=q` });
    t.is(query.status, 200);
    t.deepEqual(JSON.parse(query.body), { data: { chainID: '0x539' } });
    t.deepEqual(sent, []);
    const post = await raw(port, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: MUTATION }) });
    t.is(post.status, 200);
    t.deepEqual(JSON.parse(post.body), { data: { sendRawTransaction: `0x${'ab'.repeat(32)}` } });
    t.deepEqual(sent, ['01']);
  } finally {
    await server.close();
  }
});

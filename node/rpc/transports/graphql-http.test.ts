import test from 'ava';
import { startGraphqlHttp, type GraphqlRequest } from './graphql-http.ts';

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

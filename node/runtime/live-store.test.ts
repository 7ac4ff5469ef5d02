import test from 'ava';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LevelStore, LevelStoreClosedError } from './live-store.ts';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : new TextDecoder().decode(b));

async function withDir<T>(f: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'qbft-lab-level-'));
  try {
    return await f(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('get / write / delete / keys(prefix) sorted, values copied', async (t) => {
  await withDir(async (dir) => {
    const s = await LevelStore.open(join(dir, 'db'));
    try {
      t.is(await s.get('missing'), undefined);
      const v = enc('one');
      await s.write([
        { key: 'b/2', value: enc('b2') },
        { key: 'a/1', value: v },
        { key: 'b/1', value: enc('b1') },
        { key: 'b/10', value: enc('b10') },
        { key: 'c', value: enc('c') },
        { key: 'b', value: enc('b') },
      ]);
      v[0] = 0; // mutating the caller's buffer after write changes nothing
      t.is(dec(await s.get('a/1')), 'one');
      const got = (await s.get('a/1'))!;
      got[0] = 0; // nor does mutating what get returned
      t.is(dec(await s.get('a/1')), 'one');
      t.deepEqual(await s.keys('b/'), ['b/1', 'b/10', 'b/2']);
      t.deepEqual(await s.keys('b'), ['b', 'b/1', 'b/10', 'b/2']);
      t.deepEqual(await s.keys(''), ['a/1', 'b', 'b/1', 'b/10', 'b/2', 'c']);
      t.deepEqual(await s.keys('zz'), []);
      // later entries for the same key win; undefined deletes
      await s.write([
        { key: 'c', value: enc('x') },
        { key: 'c', value: enc('y') },
        { key: 'b/1', value: undefined },
      ]);
      t.is(dec(await s.get('c')), 'y');
      t.is(await s.get('b/1'), undefined);
      t.deepEqual(await s.keys('b/'), ['b/10', 'b/2']);
      await s.write([]);
      // non-ASCII keys round-trip and sort like the simulator's store (UTF-16 code units)
      await s.write([
        { key: 'u/\u{1F600}', value: enc('emoji') },
        { key: 'u/\uFF01', value: enc('fullwidth') },
        { key: 'u/é', value: enc('e') },
      ]);
      t.deepEqual(await s.keys('u/'), ['u/é', 'u/\u{1F600}', 'u/\uFF01']);
      t.is(dec(await s.get('u/\u{1F600}')), 'emoji');
    } finally {
      await s.close();
    }
  });
});

test('bad entries reject the whole batch (nothing applied)', async (t) => {
  await withDir(async (dir) => {
    const s = await LevelStore.open(dir);
    try {
      await t.throwsAsync(s.write([{ key: 'ok', value: enc('1') }, { key: 'bad', value: 'x' as unknown as Uint8Array }]), { instanceOf: TypeError });
      await t.throwsAsync(s.write([{ key: 'ok', value: enc('1') }, { key: '\uD800', value: enc('x') }]), { instanceOf: RangeError });
      await t.throwsAsync(s.write([{ key: 7 as unknown as string, value: enc('1') }]), { instanceOf: TypeError });
      t.is(await s.get('ok'), undefined);
      t.deepEqual(await s.keys(''), []);
    } finally {
      await s.close();
    }
  });
});

test('data survives close and reopen; a second open of a held directory fails; closed store throws', async (t) => {
  await withDir(async (dir) => {
    const s1 = await LevelStore.open(dir);
    await s1.write([{ key: 'k1', value: enc('v1') }, { key: 'k2', value: enc('v2') }]);
    await t.throwsAsync(LevelStore.open(dir)); // LevelDB's LOCK
    await s1.close();
    await s1.close(); // idempotent
    await t.throwsAsync(s1.get('k1'), { instanceOf: LevelStoreClosedError });
    const s2 = await LevelStore.open(dir);
    try {
      t.is(dec(await s2.get('k1')), 'v1');
      t.deepEqual(await s2.keys('k'), ['k1', 'k2']);
    } finally {
      await s2.close();
    }
  });
});

const storeUrl = new URL('./live-store.ts', import.meta.url).href;
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A child process writes batches of 3 keys; after each resolved write it prints the batch number.
 * We kill -9 it mid-stream, reopen, and check that every acknowledged batch is there in full and
 * no batch is partial.
 */
test('kill -9 after a resolved write loses nothing, and no batch is half applied', async (t) => {
  t.timeout(60_000);
  await withDir(async (dir) => {
    const script = `
      import { LevelStore } from ${JSON.stringify(storeUrl)};
      const s = await LevelStore.open(${JSON.stringify(dir)});
      const big = new Uint8Array(64 * 1024).fill(7);
      for (let i = 0; i < 100000; i++) {
        const k = String(i).padStart(6, '0');
        await s.write([{ key: 'a/' + k, value: big }, { key: 'b/' + k, value: big }, { key: 'c/' + k, value: new Uint8Array([i & 255]) }]);
        process.stdout.write(i + '\\n');
      }
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let acked = -1;
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(() => reject(new Error(`child did not ack 20 writes in time; stderr: ${stderr}`)), 45_000);
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        const lines = buf.split('\n');
        buf = lines.pop()!;
        for (const l of lines) acked = Number(l);
        if (acked >= 20) {
          clearTimeout(timer);
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('exit', () => {
        clearTimeout(timer);
        if (acked < 20) reject(new Error(`child exited early; stderr: ${stderr}`));
      });
    });
    await exited;
    const s = await LevelStore.open(dir);
    try {
      const a = await s.keys('a/');
      const b = await s.keys('b/');
      const c = await s.keys('c/');
      t.true(c.length >= acked + 1, `acknowledged ${acked + 1} batches, found ${c.length}`);
      t.is(a.length, c.length);
      t.is(b.length, c.length);
      // contiguous from 0: nothing lost in the middle
      t.is(c[c.length - 1], 'c/' + String(c.length - 1).padStart(6, '0'));
      const last = await s.get(c[c.length - 1]!);
      t.deepEqual(last, new Uint8Array([(c.length - 1) & 255]));
    } finally {
      await s.close();
    }
  });
});

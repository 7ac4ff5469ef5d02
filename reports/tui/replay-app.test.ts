import test from 'ava';
import { createElement as h } from 'react';
import { render } from 'ink-testing-library';
import proposerCrash from '../../scenarios/proposer-crash.ts';
import { runScenarioTrace, timelineOf } from '../trace-source.ts';
import { ReplayApp } from './components/replay-app.ts';
import { replayData, type ReplayData } from './replay-data.ts';
import { ManualTicker } from './ticker.ts';

// proposer-crash: v2 (proposer of block 3) crashes at 2.5 s; height 3's round 0 started at 3 s
// times out at 5 s on v0, v1 and v3, which move to round 1 (proposer v3) and commit at ~5.07 s.
const data: Promise<ReplayData> = runScenarioTrace(proposerCrash).then((t) => replayData(timelineOf(t)));

const SIZE = { rows: 24, columns: 80 };
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function start(d: ReplayData, ticker?: ManualTicker) {
  const app = render(h(ReplayApp, { data: d, size: SIZE, ticker }));
  const frame = () => app.lastFrame() ?? '';
  /** Waits (up to 5 s, for loaded machines) until the frame has stayed the same for 60 ms. */
  const settle = async () => {
    let last = frame();
    let stable = 0;
    for (let i = 0; i < 250 && stable < 3; i++) {
      await wait(20);
      const now = frame();
      stable = now === last ? stable + 1 : 0;
      last = now;
    }
    return last;
  };
  /** Waits until the frame matches (up to 5 s) and returns it. */
  const until = async (re: RegExp) => {
    for (let i = 0; i < 250 && !re.test(frame()); i++) await wait(20);
    return frame();
  };
  /** Sends keys, one render apart, then waits until the frame settles. */
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      const before = frame();
      app.stdin.write(k);
      for (let i = 0; i < 10 && frame() === before; i++) await wait(10);
    }
    return settle();
  };
  return { app, frame, press, settle, until };
}

const lane = (frame: string, name: string) => frame.split('\n').find((l) => new RegExp(`^[ >]${name}\\*?\\s`).test(l)) ?? '';

test('the first frame: one lane per validator, the status bar and at most 23 lines of 80 columns', async (t) => {
  const d = await data;
  const { app, settle } = start(d);
  const f = await settle();
  for (const v of ['v0', 'v1', 'v2', 'v3']) t.regex(lane(f, v), /h1\s+-\s+block timer\s+blk 1\.00s/);
  t.regex(f, /0\.000s \/ 30\.000s {2}paused {2}1x {2}seed 1 {2}trace 0x141b93d3/);
  t.regex(f, /proposer-crash · 4 validators · block period 1s · round timer 2s x 2\^round/);
  const lines = f.split('\n');
  t.true(lines.length <= 23, `${lines.length} lines`);
  t.true(lines.every((l) => [...l].length <= 80));
  app.unmount();
});

test('r jumps to the round change: the crashed proposer is down, the others in round 1 with a 4 s timer', async (t) => {
  const d = await data;
  const { app, press } = start(d);
  const f = await press('r');
  t.regex(f, /^ 5\.000s \/ 30\.000s/m);
  t.regex(lane(f, 'v2'), /^ v2\s+-\s+-\s+down\s+-\s+crashed/);
  for (const v of ['v0', 'v1', 'v3']) t.regex(lane(f, v), /h3\s+r1\s+round change\s+rnd 4\.00s/, v);
  t.regex(lane(f, 'v3'), /^ v3\*/, 'v3 proposes round 1');
  t.regex(f, /^> {3}5\.000s {2}v1, v0, v3: round 0 timer expired, height 3 moves to round 1/m);
  t.regex(f, /next 5\.084s {2}block 3 committed in round 1 proposed by v3/);
  app.unmount();
});

test('stepping: s and the right arrow move to the next change, c to the commit, left steps back', async (t) => {
  const d = await data;
  const { app, press } = start(d);
  t.regex(await press('s'), /^ 1\.000s \/ 30\.000s/m);
  t.regex(await press('\u001B[C'), /^ 1\.0\d\ds \/ 30\.000s/m);
  await press('r');
  const committed = await press('c');
  t.regex(committed, /^ 5\.084s/m);
  t.regex(lane(committed, 'v1'), /h4\s+-\s+committed #3/);
  t.regex(await press('\u001B[D'), /^ 5\.0[0-8]\ds/m);
  t.regex(await press('C'), /^ 2\.\d{3}s/m, 'previous commit: block 2');
  app.unmount();
});

test('focus a validator, seek by typing seconds, help, and quit', async (t) => {
  const d = await data;
  const { app, press } = start(d);
  let f = await press('2');
  t.regex(f, /^>v2/m);
  t.regex(f, /^v2 0x7da512…7e26b validator: head #0/m);
  t.regex(f, /^events \(v2\)$/m);
  f = await press('g', '2', '.', '5');
  t.regex(f, /seek to \(seconds\): 2\.5_/);
  f = await press('\r');
  t.regex(f, /^ 2\.500s \/ 30\.000s/m);
  t.regex(f, /faults: crash since 2\.500s/);
  t.regex(f, /^> {3}2\.500s {2}v2: crash$/m);
  f = await press('2');
  t.notRegex(f, /^>v2/m, 'pressing 2 again unfocuses');
  f = await press('?');
  t.regex(f, /^ {2}r {2}R {7}next \/ previous round change$/m);
  t.notRegex(f, /^events/m);
  f = await press('?', 'q');
  const after = await press('s');
  t.is(after, f, 'no more updates after q');
  app.unmount();
});

test('play runs on the injected ticker at the chosen speed and stops at q', async (t) => {
  const d = await data;
  const ticker = new ManualTicker();
  const { app, press, until } = start(d, ticker);
  await press(' ');
  t.is(ticker.running, 1);
  ticker.advance(1500);
  t.regex(await until(/^ 1\.500s/m), /^ 1\.500s \/ 30\.000s {2}playing {2}1x/m);
  await press('+');
  ticker.advance(1000);
  t.regex(await until(/^ 3\.500s/m), /^ 3\.500s \/ 30\.000s {2}playing {2}2x/m);
  await press(' ');
  t.is(ticker.running, 0, 'pause stops the ticker');
  await press(' ', 'q');
  t.is(ticker.running, 0, 'quit stops it too');
  app.unmount();
});

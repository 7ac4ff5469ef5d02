/**
 * The ink replay view: keys go through the replay controller, the playback clock is an injected
 * Ticker, and the screen is screenLines() coloured line by line.
 */
import { createElement as h, useEffect, useMemo, useReducer, useState, type ReactElement } from 'react';
import { Box, useApp, useInput, useStdout, type Key as InkKey } from 'ink';
import { actionForKey } from '../keys.ts';
import { initialState, reduce, type ReplayAction, type ReplayContext, type ReplayState } from '../replay-controller.ts';
import type { ReplayData } from '../replay-data.ts';
import { screenLines, type ScreenSize } from '../screen.ts';
import type { Ticker } from '../ticker.ts';
import { ScreenLine } from './screen-line.ts';

export interface ReplayAppProps {
  data: ReplayData;
  /** The playback clock; without one, play does nothing (stepping still works). */
  ticker?: Ticker;
  /** Wall ms between playback ticks (default 100). */
  tickMs?: number;
  colour?: boolean;
  /** Fixed screen size; by default the terminal's (80x24 when unknown). */
  size?: ScreenSize;
  initial?: Partial<ReplayState>;
}

type Input = ReplayAction | { type: 'key'; input: string; key: InkKey };

export function replayContext(data: ReplayData): ReplayContext {
  return { endMs: data.endMs, stops: data.stops, moments: data.moments, lanes: data.timeline.lanes.length };
}

function useTerminalSize(fixed: ScreenSize | undefined): ScreenSize {
  const { stdout } = useStdout();
  const read = (): ScreenSize => ({ rows: stdout?.rows || 24, columns: stdout?.columns || 80 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    if (fixed || !stdout) return;
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => void stdout.off('resize', onResize);
  }, [stdout, fixed]);
  return fixed ?? size;
}

export function ReplayApp(props: ReplayAppProps): ReactElement {
  const { data, ticker, tickMs = 100, colour = false } = props;
  const ctx = useMemo(() => replayContext(data), [data]);
  const [state, dispatch] = useReducer(
    (s: ReplayState, a: Input): ReplayState => {
      if (a.type !== 'key') return reduce(ctx, s, a);
      const action = actionForKey(s.mode, a.input, a.key);
      return action ? reduce(ctx, s, action) : s;
    },
    undefined,
    () => initialState(ctx, props.initial),
  );
  const { exit } = useApp();
  const size = useTerminalSize(props.size);
  useInput((input, key) => dispatch({ type: 'key', input, key }));
  useEffect(() => {
    if (!state.playing || !ticker) return;
    return ticker.every(tickMs, (wallMs) => dispatch({ type: 'tick', wallMs }));
  }, [state.playing, ticker, tickMs]);
  useEffect(() => {
    if (state.quit) exit();
  }, [state.quit, exit]);
  const lines = screenLines(data, state, size);
  return h(Box, { flexDirection: 'column' }, ...lines.map((line, i) => h(ScreenLine, { key: i, line, colour })));
}

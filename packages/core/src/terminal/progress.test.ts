import { describe, expect, it } from 'vitest';
import { elapsedSince, progressAllowed, progressLine, stageTicker } from './progress.js';

function terminal(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
}

describe('progressLine', () => {
  it('draws on a terminal, throttles redraws and erases at the end', () => {
    const stream = terminal(true);
    let clock = 1000;
    const line = progressLine(stream, {}, 'airlock audit export', () => clock);
    line.update('1000 decisions');
    clock += 50;
    line.update('2000 decisions');
    line.update('3000 decisions', true);
    clock += 200;
    line.update('4000 decisions');
    line.done();
    expect(stream.written).toEqual([
      '\r\u001b[2Kairlock audit export: 1000 decisions',
      '\r\u001b[2Kairlock audit export: 3000 decisions',
      '\r\u001b[2Kairlock audit export: 4000 decisions',
      '\r\u001b[2K',
    ]);
  });

  it('writes nothing to a pipe or in CI, and erases nothing it never drew', () => {
    for (const [stream, env] of [
      [terminal(false), {}],
      [terminal(true), { CI: 'true' }],
      [terminal(true), { CI: '1' }],
    ] as const) {
      const line = progressLine(stream, env, 'x');
      line.update('y', true);
      line.done();
      expect(stream.written).toEqual([]);
    }
    const quiet = terminal(true);
    progressLine(quiet, {}, 'x').done();
    expect(quiet.written).toEqual([]);
  });

  it('allows progress only on a terminal outside CI', () => {
    expect(progressAllowed({ isTTY: true }, {})).toBe(true);
    expect(progressAllowed({ isTTY: true }, { CI: 'false' })).toBe(true);
    expect(progressAllowed({}, {})).toBe(false);
    expect(progressAllowed({ isTTY: true }, { CI: 'true' })).toBe(false);
  });

  it('tells elapsed seconds with one decimal', () => {
    expect(elapsedSince(1000, 13_345)).toBe('12.3 s');
  });
});

describe('stageTicker', () => {
  it('names each step with the elapsed time on a terminal, then erases the line', () => {
    const stream = terminal(true);
    const ticker = stageTicker(stream, {}, 'fault-test sqlite');
    ticker.stage('starting kernels');
    ticker.stage('draining');
    ticker.done();
    expect(stream.written[0]).toMatch(
      /^\r\u001b\[2Kfault-test sqlite: starting kernels, \d+\.\d s$/,
    );
    expect(stream.written[1]).toMatch(/fault-test sqlite: draining, \d+\.\d s$/);
    expect(stream.written.at(-1)).toBe('\r\u001b[2K');
  });

  it('draws nothing in CI', () => {
    const stream = terminal(true);
    const ticker = stageTicker(stream, { CI: 'true' }, 'x');
    ticker.stage('y');
    ticker.done();
    expect(stream.written).toEqual([]);
  });
});

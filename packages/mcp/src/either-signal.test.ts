import { describe, expect, it } from 'vitest';
import { eitherSignal } from './either-signal.js';

describe('eitherSignal', () => {
  it('aborts with the reason of whichever aborts first, once', () => {
    for (const which of [0, 1]) {
      const [first, second] = [new AbortController(), new AbortController()];
      const { signal } = eitherSignal(first.signal, second.signal);
      expect(signal.aborted).toBe(false);
      const [early, late] = which === 0 ? [first, second] : [second, first];
      early.abort(`reason ${which}`);
      late.abort('later');
      expect(signal.aborted).toBe(true);
      expect(signal.reason).toBe(`reason ${which}`);
    }
  });

  it('is a source already aborted, and follows neither once released', () => {
    const done = AbortSignal.abort('gone');
    expect(eitherSignal(new AbortController().signal, done).signal).toBe(done);
    const first = new AbortController();
    const { signal, release } = eitherSignal(first.signal, new AbortController().signal);
    release();
    first.abort();
    expect(signal.aborted).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { HeldVerdicts, VERDICT_HOLD_MS } from './held-verdicts.js';
import type { CallVerdict } from './session.js';

const verdict = (kind: CallVerdict['verdict']): CallVerdict => ({
  verdict: kind,
  reason: null,
  taskKey: 't1',
  runId: 'run_1',
  requiresUser: false,
});

describe('HeldVerdicts', () => {
  it('hands a held verdict out once', () => {
    const held = new HeldVerdicts();
    held.hold('c1', verdict('allow'));
    expect(held.has('c1')).toBe(true);
    expect(held.take('c1')?.verdict).toBe('allow');
    expect(held.take('c1')).toBeUndefined();
    expect(held.size).toBe(0);
  });

  it('forgets a verdict the framework will never take', () => {
    const held = new HeldVerdicts();
    held.hold('c1', verdict('wait'));
    held.hold('c2', verdict('allow'));
    held.forget('c1');
    expect(held.size).toBe(1);
    expect(held.has('c1')).toBe(false);
  });

  it('forgets what nobody took within the park clock, the oldest first, and renews a verdict held again', () => {
    let now = 1_000;
    const held = new HeldVerdicts(() => now);
    held.hold('old', verdict('wait'));
    now += VERDICT_HOLD_MS / 2;
    held.hold('renewed', verdict('wait'));
    held.hold('young', verdict('allow'));
    now += VERDICT_HOLD_MS / 4;
    held.hold('renewed', verdict('allow'));
    now += VERDICT_HOLD_MS / 2;
    // `old` is 1.25 clocks old, `young` 0.75, `renewed` 0.5.
    expect(held.has('old')).toBe(false);
    expect(held.size).toBe(2);
    now += VERDICT_HOLD_MS / 4;
    expect(held.has('young')).toBe(false);
    expect(held.take('renewed')?.verdict).toBe('allow');
    expect(held.size).toBe(0);
  });
});

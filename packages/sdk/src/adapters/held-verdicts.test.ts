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

const call = (callId: string, input: unknown = { q: 1 }) => ({ name: 'lookup', input, callId });

describe('HeldVerdicts', () => {
  it('hands a held verdict out once', () => {
    const held = new HeldVerdicts();
    held.hold(call('c1'), verdict('allow'));
    expect(held.has('c1')).toBe(true);
    expect(held.take(call('c1'))?.verdict).toBe('allow');
    expect(held.take(call('c1'))).toBeUndefined();
    expect(held.size).toBe(0);
  });

  it('forgets a verdict the framework will never take', () => {
    const held = new HeldVerdicts();
    held.hold(call('c1'), verdict('wait'));
    held.hold(call('c2'), verdict('allow'));
    held.forget('c1');
    expect(held.size).toBe(1);
    expect(held.has('c1')).toBe(false);
  });

  it('hands out the grants nobody took, keeping parks and refusals', () => {
    const held = new HeldVerdicts();
    held.hold(call('parked'), verdict('wait'));
    held.hold(call('granted'), verdict('allow'));
    held.hold(call('refused'), verdict('deny'));
    expect(held.takeGrants().map((grant) => grant.call.callId)).toEqual(['granted']);
    expect(held.takeGrants()).toEqual([]);
    expect([held.has('parked'), held.has('refused'), held.has('granted')]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('forgets what nobody took within the park clock, the oldest first, and renews a verdict held again', () => {
    let now = 1_000;
    const held = new HeldVerdicts(() => now);
    held.hold(call('old'), verdict('wait'));
    now += VERDICT_HOLD_MS / 2;
    held.hold(call('renewed'), verdict('wait'));
    held.hold(call('young'), verdict('allow'));
    now += VERDICT_HOLD_MS / 4;
    held.hold(call('renewed'), verdict('allow'));
    now += VERDICT_HOLD_MS / 2;
    // `old` is 1.25 clocks old, `young` 0.75, `renewed` 0.5.
    expect(held.has('old')).toBe(false);
    expect(held.size).toBe(2);
    now += VERDICT_HOLD_MS / 4;
    expect(held.has('young')).toBe(false);
    expect(held.take(call('renewed'))?.verdict).toBe('allow');
    expect(held.size).toBe(0);
  });

  it('refuses with call_mismatch another tool or input under a held call id, and holds it no longer', () => {
    const held = new HeldVerdicts();
    held.hold(call('c1', { a: 1, b: 2 }), verdict('allow'));
    // Key order does not count.
    expect(held.take(call('c1', { b: 2, a: 1 }))?.verdict).toBe('allow');
    held.hold(call('c1'), verdict('allow'));
    expect(held.take(call('c1', { q: 2 }))).toMatchObject({
      verdict: 'deny',
      code: 'call_mismatch',
    });
    expect(held.size).toBe(0);
    held.hold(call('c1'), verdict('allow'));
    const other = held.take({ name: 'delete_file', input: { q: 1 }, callId: 'c1' });
    expect(other).toMatchObject({ verdict: 'deny', code: 'call_mismatch' });
    expect(other?.reason).toContain('delete_file');
  });
});

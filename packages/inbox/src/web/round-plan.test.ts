import { describe, expect, it } from 'vitest';
import { isFolded, planPreview, roundPlanOf } from './round-plan.js';

const started = (data: unknown) => ({
  seq: 3,
  type: 'run.round_started',
  task_key: null,
  principal: 'kernel',
  created_at: 1000,
  data,
});

describe('roundPlanOf', () => {
  it('reads the plan of a round said with text, and nothing of one said without', () => {
    expect(roundPlanOf(started({ round: 2, calls: 1, text: ' list it \n' }))).toEqual({
      round: 2,
      text: 'list it',
    });
    expect(roundPlanOf(started({ round: 2, calls: 1 }))).toBeNull();
    expect(roundPlanOf(started({ round: 2, calls: 1, text: '  ' }))).toBeNull();
    expect(roundPlanOf({ ...started({ round: 1, text: 'x' }), type: 'run.model_read' })).toBeNull();
  });
});

describe('a long plan', () => {
  it('is folded past 600 characters or 8 lines, behind its start on one line', () => {
    expect(isFolded('a'.repeat(600))).toBe(false);
    expect(isFolded('a'.repeat(601))).toBe(true);
    expect(isFolded('a\n'.repeat(7))).toBe(false);
    expect(isFolded('a\n'.repeat(8))).toBe(true);
    expect(planPreview('first\n\nsecond')).toBe('first second');
    expect(planPreview('b'.repeat(200))).toBe(`${'b'.repeat(160)}…`);
  });
});

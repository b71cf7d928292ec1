import { describe, expect, it } from 'vitest';
import { RETRY_ROUTES } from '../machines/retry-routes.js';
import { OUTCOME_UNKNOWN } from '../machines/task-machine.js';
import { executorFailure } from './executor-failure.js';

/**
 * The task machine branches on a few failure codes (holds() on a denied
 * call, the retry routes, late_report on a lapsed hooked claim); that is
 * safe only while no executor's commit can write them.
 */
describe('the failure codes the task machine branches on', () => {
  const branched = new Set<string>(['approval_denied', OUTCOME_UNKNOWN]);
  for (const route of RETRY_ROUTES) for (const code of route.codes ?? []) branched.add(code);

  it("are never written by an executor's commit (recorded as tool_failed)", () => {
    for (const code of branched) {
      expect([code, executorFailure({ code, detail: 'ran' })?.code]).toEqual([code, 'tool_failed']);
    }
  });

  it("leave an executor's own codes as sent", () => {
    expect(executorFailure({ code: 'not_found', detail: 'x' })).toEqual({
      code: 'not_found',
      detail: 'x',
    });
  });
});

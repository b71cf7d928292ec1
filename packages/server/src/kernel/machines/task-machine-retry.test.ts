import { describe, expect, it } from 'vitest';
import { RETRY_ROUTES, retryRoute } from './retry-routes.js';
import { TASK_VERB_NAMES, TASK_VERBS, type TaskVerb, verbRule } from './task-machine.js';
import type { TaskKind, TaskState } from './task-states.js';

/** Verbs that only end a row's wait from outside (a stop, a revoked executor): no way on for it. */
const NOT_A_WAY_ON: readonly TaskVerb[] = ['cancel', 'readdress', 'heartbeat'];

/** The verbs that move a row of this kind on from this state (a person's, an executor's or the kernel's). */
function waysOn(kind: TaskKind, state: TaskState): TaskVerb[] {
  return TASK_VERB_NAMES.filter((verb) => {
    const rule = verbRule(verb);
    return (
      !NOT_A_WAY_ON.includes(verb) &&
      rule.from.includes(state) &&
      (!rule.kinds || rule.kinds.includes(kind))
    );
  });
}

describe('retry routes', () => {
  const kinds: TaskKind[] = ['tool', 'ask', 'hook', 'summary'];
  const codes = [
    null,
    'approval_denied',
    'approval_expired',
    'question_expired',
    'declined',
    'invalid_question',
    'tool_failed',
    'hook_timed_out',
    'invalid_hook_result',
    'summary_failed',
    'outcome_unknown',
  ];

  it('leave every kind of row where some verb moves it on (no retry strands its run)', () => {
    for (const kind of kinds) {
      for (const error_code of codes) {
        const route = retryRoute({ kind, error_code });
        for (const to of route.to) {
          expect([kind, error_code, to, waysOn(kind, to).length > 0]).toEqual([
            kind,
            error_code,
            to,
            true,
          ]);
        }
      }
    }
  });

  it('a retried question is never left runnable: it waits for an answer, or the retry is refused', () => {
    expect(waysOn('ask', 'runnable')).toEqual([]);
    for (const error_code of codes) {
      const route = retryRoute({ kind: 'ask', error_code });
      expect(route.to).not.toContain('runnable');
    }
    expect(retryRoute({ kind: 'ask', error_code: 'declined' }).to).toEqual(['awaiting_input']);
    expect(retryRoute({ kind: 'ask', error_code: 'invalid_question' }).route).toBe('refuse');
  });

  it('a row the approval stage refused crosses it again; only a question waits for an answer', () => {
    for (const kind of ['tool', 'hook', 'summary'] as const) {
      expect(retryRoute({ kind, error_code: 'approval_denied' }).route).toBe('stage_again');
      expect(retryRoute({ kind, error_code: 'approval_expired' }).route).toBe('stage_again');
      const other = retryRoute({ kind, error_code: 'question_expired' });
      expect(other.route).toBe('run_again');
      expect(other.to).not.toContain('awaiting_input');
    }
  });

  it("the retry verb's targets are exactly its routes' targets", () => {
    const targets = new Set(RETRY_ROUTES.flatMap((route) => route.to));
    expect([...targets].sort()).toEqual([...TASK_VERBS.retry.to].sort());
  });
});

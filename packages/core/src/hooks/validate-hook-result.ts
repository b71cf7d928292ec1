import { utf8Length } from '../glob/utf8.js';
import { ProblemList, pointerTo, type Validated } from '../issues/problem.js';
import { describe } from '../rules/validate-rules.js';
import { HOOK_FEEDBACK_MAX_BYTES, type HookEvent, type HookResult } from '../schemas/hooks.js';

/**
 * Validates what a hook returned in structured_content for its event:
 * `{continue:false}`, or for `stop` only `{continue:true, feedback}` with
 * nonblank feedback of at most 16 KiB and no NUL. No other field is allowed.
 */
export function validateHookResult(event: HookEvent, input: unknown): Validated<HookResult> {
  const problems = new ProblemList();
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    problems.add(
      'hook_result_not_object',
      '',
      `a hook result must be an object like {"continue": false}, not ${describe(input)}`,
    );
    return { ok: false, problems: problems.items };
  }
  const fields = input as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (key !== 'continue' && key !== 'feedback') {
      problems.add(
        'hook_result_key_unknown',
        pointerTo('', key),
        `"${key}" is not a hook result field; only continue and feedback are`,
      );
    }
  }
  if (typeof fields.continue !== 'boolean') {
    problems.add(
      'hook_result_continue_invalid',
      fields.continue === undefined ? '' : '/continue',
      `a hook result needs "continue": true or false, not ${describe(fields.continue)}`,
    );
  } else if (fields.continue) {
    if (event !== 'stop') {
      problems.add(
        'hook_result_continue_not_allowed',
        '/continue',
        `only the stop hook may continue; ${event} acknowledges with {"continue": false}`,
      );
    } else {
      checkFeedback(fields.feedback, problems);
    }
  } else if (fields.feedback !== undefined) {
    problems.add(
      'hook_result_feedback_not_allowed',
      '/feedback',
      'feedback rides only with {"continue": true} from the stop hook',
    );
  }
  return problems.empty
    ? { ok: true, value: fields as HookResult }
    : { ok: false, problems: problems.items };
}

function checkFeedback(feedback: unknown, problems: ProblemList): void {
  if (feedback === undefined) {
    problems.add(
      'hook_result_feedback_missing',
      '',
      'a continuation needs "feedback": what the model should do next',
    );
    return;
  }
  if (typeof feedback !== 'string' || feedback.trim() === '') {
    problems.add('hook_result_feedback_invalid', '/feedback', 'feedback must be nonblank text');
  } else if (feedback.includes('\u0000')) {
    problems.add(
      'hook_result_feedback_invalid',
      '/feedback',
      'feedback must not contain a NUL character',
    );
  } else if (utf8Length(feedback) > HOOK_FEEDBACK_MAX_BYTES) {
    problems.add(
      'hook_result_feedback_invalid',
      '/feedback',
      `feedback is ${utf8Length(feedback)} bytes; the limit is ${HOOK_FEEDBACK_MAX_BYTES} (16 KiB)`,
    );
  }
}

import { asKeptText, HookEventSchema, textIsWellFormed, validateHookResult } from '@airlock/core';
import type { TaskView } from '../views.js';
import { DEFAULT_BODY_LIMIT, resultCommitsAsIs } from './commit-fit.js';

/** A failure a handler throws on purpose: its code and detail are what the model reads. */
export class ToolError extends Error {
  constructor(
    /** A short machine code, such as `not_found`. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

/** What a handler's run comes to: the result to commit, or the failure. */
export type Outcome =
  | { outcome: 'succeeded'; result: unknown }
  | { outcome: 'failed'; error: { code: string; detail: string } };

/**
 * What a handler's run comes to, and whether the kernel takes its commit as
 * it is (false: the commit may be refused and a failure committed instead).
 */
export interface Ran {
  outcome: Outcome;
  commitsAsIs: boolean;
}

/** The kernel keeps a failure's detail up to 16,384 characters; the SDK sends a little less. */
const DETAIL_LIMIT = 16_000;

/** The kernel takes a failure code of 1 to 100 characters (core's commit contract). */
const CODE_LIMIT = 100;

/**
 * A failed outcome, its detail cut to what the kernel keeps and written as
 * the kernel keeps it (a NUL or a lone surrogate as U+FFFD), so that the row
 * as it will commit (`onRan`) reads as it is recorded.
 */
export function failed(code: string, detail: string): Outcome {
  return { outcome: 'failed', error: { code, detail: asKeptText(detail.slice(0, DETAIL_LIMIT)) } };
}

/** Whether the kernel takes a failure code as sent: 1 to 100 characters, no NUL, no lone surrogate. */
function usableCode(code: unknown): code is string {
  return (
    typeof code === 'string' &&
    code.length >= 1 &&
    code.length <= CODE_LIMIT &&
    textIsWellFormed(code) &&
    !code.includes('\u0000')
  );
}

/**
 * The failure a handler's throw commits as: a {@link ToolError}'s code (an
 * unusable one, such as `''`, commits as `invalid_result` naming it), else
 * `tool_failed`; the detail is the message as text, whatever was thrown.
 */
export function thrownOutcome(reason: unknown): Outcome {
  const detail = messageOf(reason);
  if (!(reason instanceof ToolError)) return failed('tool_failed', detail);
  const { code } = reason as { code: unknown };
  if (usableCode(code)) return failed(code, detail);
  const shown = (typeof code === 'string' ? JSON.stringify(code) : textOf(code)).slice(0, 120);
  return failed(
    'invalid_result',
    `the tool threw a ToolError whose code ${shown} is not 1 to ${CODE_LIMIT} characters without NUL or a lone surrogate: ${detail}`,
  );
}

/**
 * A handler's returned value as the outcome to commit, as JSON gives it
 * back (the JSON made here, parsed again): a value JSON cannot
 * carry (a BigInt, a cycle, a function, a symbol) is the failure `invalid_result`, found here
 * rather than by a commit that could never be sent. The JSON text made to
 * find that also tells, at no second serialization, whether a kernel with
 * the body limit `bodyLimit` takes the result as it is (see
 * {@link resultCommitsAsIs}).
 */
export function resultOutcome(value: unknown, bodyLimit = DEFAULT_BODY_LIMIT): Ran {
  let text: string | undefined;
  try {
    text = JSON.stringify(value ?? null);
  } catch (error) {
    return notJson(messageOf(error));
  }
  // A function, a symbol or a toJSON giving undefined: JSON.stringify makes no text of them.
  if (text === undefined) return notJson(`JSON has no form for a ${typeof value} result`);
  return {
    // The value as JSON carries it, read back once: onRan tells, and the commit sends, what the
    // kernel records (a Date as its text, NaN as null, a toJSON's answer), as it was when the
    // handler returned, whatever the handler changes in it afterwards.
    outcome: { outcome: 'succeeded', result: JSON.parse(text) },
    commitsAsIs: resultCommitsAsIs(text, bodyLimit),
  };
}

/** The failure of a result that cannot be sent as JSON, found before any commit is tried. */
function notJson(why: string): Ran {
  return {
    outcome: failed('invalid_result', `the tool's result is not JSON: ${why}`),
    commitsAsIs: true,
  };
}

/**
 * A hook's result rides in `structured_content`, once core says it is a valid one; whether the
 * kernel takes it as it is is judged against its body limit `bodyLimit`, as a tool's is.
 */
export function hookOutcome(task: TaskView, value: unknown, bodyLimit = DEFAULT_BODY_LIMIT): Ran {
  const event = HookEventSchema.safeParse((task.tool_input as { event?: unknown } | null)?.event);
  if (!event.success) {
    return {
      outcome: failed('invalid_hook_result', 'the hook task names no lifecycle event'),
      commitsAsIs: true,
    };
  }
  const validated = validateHookResult(event.data, value);
  if (!validated.ok) {
    const detail = validated.problems
      .map((problem) => `${problem.pointer || '/'}: ${problem.message}`)
      .join('; ');
    return { outcome: failed('invalid_hook_result', detail), commitsAsIs: true };
  }
  return resultOutcome({ structured_content: validated.value }, bodyLimit);
}

/**
 * What a handler's returned value commits as: a hook's checked result or a
 * tool's result. The tool already ran, so a value that throws while it is
 * read (a getter, a proxy) commits as a failure naming the throw
 * (`invalid_hook_result` for a hook, `invalid_result` for a tool) rather than
 * leaving the row uncommitted to run again once its lease lapses.
 */
export function checkedOutcome(task: TaskView, value: unknown, bodyLimit: number): Ran {
  const hook = task.kind === 'hook';
  try {
    return hook ? hookOutcome(task, value, bodyLimit) : resultOutcome(value, bodyLimit);
  } catch (error) {
    return {
      outcome: failed(
        hook ? 'invalid_hook_result' : 'invalid_result',
        `the ${hook ? 'hook' : 'tool'}'s result threw while it was read: ${messageOf(error)}`,
      ),
      commitsAsIs: true,
    };
  }
}

/** A row as its outcome will commit it. */
export function ranView(task: TaskView, outcome: Outcome): TaskView {
  return outcome.outcome === 'succeeded'
    ? { ...task, state: 'succeeded', result: outcome.result as TaskView['result'], error: null }
    : { ...task, state: 'failed', result: null, error: outcome.error };
}

/** The message of anything thrown, as text: `{message: 5}` gives `5`. */
function messageOf(reason: unknown): string {
  try {
    const message = (reason as { message?: unknown } | null | undefined)?.message;
    return textOf(message === undefined || message === null ? reason : message);
  } catch {
    // A getter that throws (a revoked proxy, say) still leaves the value itself to show.
    return textOf(reason);
  }
}

/** Any value as text, even one whose own conversion throws (an object without a prototype). */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return String(value);
  } catch {
    return 'a value that cannot be shown as text';
  }
}

import { ProblemList, pointerTo, type Validated } from '../issues/problem.js';
import { describe } from '../rules/validate-rules.js';
import {
  HOOK_MAX_CONTINUATIONS_MAX,
  HOOK_TIMEOUT_MS_MAX,
  HookEventSchema,
  type LifecycleHooks,
} from '../schemas/hooks.js';

const EVENTS = HookEventSchema.options;

/**
 * Validates a lifecycle_hooks declaration (`null` and `{}` enable none).
 * Reports every problem with a JSON pointer; never throws.
 */
export function validateLifecycleHooks(input: unknown): Validated<LifecycleHooks> {
  const problems = new ProblemList();
  const hooks = checkLifecycleHooks(input, '', problems);
  return problems.empty && hooks
    ? { ok: true, value: hooks }
    : { ok: false, problems: problems.items };
}

/** Checks a lifecycle_hooks value at `base`, adding problems; returns the hooks or null. */
export function checkLifecycleHooks(
  input: unknown,
  base: string,
  problems: ProblemList,
): LifecycleHooks | null {
  if (input === null) return {};
  if (typeof input !== 'object' || Array.isArray(input)) {
    problems.add(
      'hooks_not_object',
      base,
      `lifecycle_hooks must be an object or null, not ${describe(input)}`,
    );
    return null;
  }
  const before = problems.items.length;
  for (const [event, declaration] of Object.entries(input)) {
    const at = pointerTo(base, event);
    if (!(EVENTS as readonly string[]).includes(event)) {
      problems.add(
        'hook_event_unknown',
        at,
        `"${event}" is not a lifecycle event; use turn_start, pre_compact, post_compact or stop`,
      );
      continue;
    }
    checkHook(event === 'stop', declaration, at, problems);
  }
  return problems.items.length > before ? null : (input as LifecycleHooks);
}

function checkHook(isStop: boolean, declaration: unknown, at: string, problems: ProblemList): void {
  if (declaration === null || typeof declaration !== 'object' || Array.isArray(declaration)) {
    problems.add(
      'hook_not_object',
      at,
      `a hook must be an object with tool and timeout_ms, not ${describe(declaration)}`,
    );
    return;
  }
  const fields = declaration as Record<string, unknown>;
  const allowed = isStop ? ['tool', 'timeout_ms', 'max_continuations'] : ['tool', 'timeout_ms'];
  for (const key of Object.keys(fields)) {
    if (!allowed.includes(key)) {
      problems.add(
        'hook_key_unknown',
        pointerTo(at, key),
        `"${key}" is not a key of this hook; it takes ${allowed.join(', ')}`,
      );
    }
  }
  if (typeof fields.tool !== 'string' || fields.tool === '') {
    problems.add(
      'hook_tool_missing',
      fields.tool === undefined ? at : pointerTo(at, 'tool'),
      'a hook needs "tool": the executor tool to run',
    );
  }
  if (fields.timeout_ms === undefined) {
    problems.add(
      'hook_timeout_missing',
      at,
      `a hook needs "timeout_ms", 1 through ${HOOK_TIMEOUT_MS_MAX}`,
    );
  } else if (!isIntegerIn(fields.timeout_ms, 1, HOOK_TIMEOUT_MS_MAX)) {
    problems.add(
      'hook_timeout_invalid',
      pointerTo(at, 'timeout_ms'),
      `timeout_ms must be a whole number of milliseconds from 1 through ${HOOK_TIMEOUT_MS_MAX}, not ${describe(fields.timeout_ms)}`,
    );
  }
  if (!isStop) return;
  if (fields.max_continuations === undefined) {
    problems.add(
      'hook_max_continuations_missing',
      at,
      `the stop hook needs "max_continuations", 0 through ${HOOK_MAX_CONTINUATIONS_MAX}: how many extra rounds it may ask for`,
    );
  } else if (!isIntegerIn(fields.max_continuations, 0, HOOK_MAX_CONTINUATIONS_MAX)) {
    problems.add(
      'hook_max_continuations_invalid',
      pointerTo(at, 'max_continuations'),
      `max_continuations must be a whole number from 0 through ${HOOK_MAX_CONTINUATIONS_MAX}, not ${describe(fields.max_continuations)}`,
    );
  }
}

function isIntegerIn(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

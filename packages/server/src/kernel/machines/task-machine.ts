import type { EventData, RowFailureCode } from '@airlock/core';
import { AirlockError, type ErrorCode } from '../../errors.js';
import type { TaskTable } from '../../store/schema.js';
import type { TaskEventType, TaskKind, TaskState } from './task-states.js';

/** What a verb needs of the run its row belongs to. */
export type RunGuard = 'running' | 'any';

/** One verb of the task state machine: where it may start, where it ends, what it says. */
export interface TaskVerbRule {
  /** What the verb does, in one line (printed in docs/task-states.md). */
  summary: string;
  /** The states a row may be in for the verb to move it. */
  from: readonly TaskState[];
  /** The states the verb may leave it in; `same` keeps the row's state (a move of another column). */
  to: readonly TaskState[] | 'same';
  /** The events one move may emit (one per move; none for a silent move). */
  emits: readonly TaskEventType[];
  /** `running`: the run must still be running, else 409 `run_not_running` and nothing changes. */
  run: RunGuard;
  /** The kinds of row the verb applies to; absent: every kind. */
  kinds?: readonly TaskKind[];
  /** The code a refused move answers (its HTTP status is 409). */
  refusal: ErrorCode;
  /** Who performs it: a person on the member plane, an executor, or the kernel. */
  actor: 'member' | 'executor' | 'kernel';
  /** A further condition on the row; returns why it is refused, or null. */
  admits?: (row: Pick<TaskTable, 'on_failure' | 'error_code' | 'kind' | 'state'>) => string | null;
}

/** True when a failed row holds its run for a person (its `on_failure` is hold). */
export function holds(
  row: Pick<TaskTable, 'state' | 'on_failure' | 'error_code' | 'kind'>,
): boolean {
  return (
    (row.state === 'failed' || row.state === 'timed_out') &&
    row.on_failure === 'hold' &&
    // A refused call is data the model reads; a refused hook still fails closed.
    (row.error_code !== 'approval_denied' || row.kind !== 'tool')
  );
}

/**
 * The failure of a hooked agent's own call whose claim lapsed without its
 * report: the agent may have run it, so it is never granted again (see
 * `lapseAgentClaim`), and only the agent's late report corrects it.
 */
export const OUTCOME_UNKNOWN = 'outcome_unknown' satisfies RowFailureCode;

/**
 * The failure of a hooked agent's granted call that its turn's stop closed
 * unreported, its transcript not showing it returned: the kernel's guess
 * that it did not run, which the agent's late report corrects.
 */
export const NOT_RUN = 'not_run' satisfies RowFailureCode;

/** The failure codes of a hooked call whose outcome the kernel guessed, which a late report corrects. */
export const LATE_REPORTABLE: readonly string[] = [OUTCOME_UNKNOWN, NOT_RUN];

const WAITING = ['needs_approval', 'awaiting_input'] as const;

/** Whether a row in this state waits for a person: a park or a question. */
export function isWaiting(state: string): boolean {
  return (WAITING as readonly string[]).includes(state);
}

const CLAIMABLE_KINDS = ['tool', 'hook'] as const;

/**
 * The task state machine: every verb, the states it moves a row from and to,
 * the event it emits and what it needs of the run. {@link checkMove} and
 * `moveTask` (move-task.ts) read it; nothing else decides a row's state.
 */
export const TASK_VERBS = {
  plant: {
    summary: 'a new row crosses the approval stage: granted, parked, asked, or refused',
    from: ['ready'],
    to: ['runnable', 'needs_approval', 'awaiting_input', 'failed'],
    emits: ['task.granted', 'task.parked', 'task.asked', 'task.denied', 'task.failed'],
    run: 'running',
    refusal: 'task_not_waiting',
    actor: 'kernel',
  },
  approve: {
    summary: 'a person grants a parked call',
    from: ['needs_approval'],
    to: ['runnable'],
    emits: ['task.approved'],
    run: 'running',
    refusal: 'task_not_waiting',
    actor: 'member',
  },
  deny: {
    summary: 'a person refuses a parked call (approval_denied, read by the model)',
    from: ['needs_approval'],
    to: ['failed'],
    emits: ['task.denied'],
    run: 'running',
    refusal: 'task_not_waiting',
    actor: 'member',
  },
  resolve: {
    summary: 'a person answers (or declines) a question',
    from: ['awaiting_input'],
    to: ['succeeded', 'failed'],
    emits: ['task.resolved'],
    run: 'running',
    refusal: 'task_not_waiting',
    actor: 'member',
  },
  retry: {
    summary:
      'a person retries a row that holds its run: a question asks again, a refused call crosses the approval stage again, an expired park parks again, anything else runs again (see Retries)',
    from: ['failed', 'timed_out'],
    to: ['runnable', 'needs_approval', 'awaiting_input'],
    emits: ['task.retried'],
    run: 'running',
    refusal: 'task_not_waiting',
    actor: 'member',
    admits: (row) =>
      holds(row)
        ? null
        : `does not hold its run (on_failure ${row.on_failure}, ${row.error_code ?? 'no error'})`,
  },
  claim: {
    summary: 'an executor takes a runnable tool or hook row under a lease',
    from: ['runnable'],
    to: ['claimed'],
    emits: ['task.claimed'],
    run: 'running',
    kinds: CLAIMABLE_KINDS,
    refusal: 'not_claimable',
    actor: 'executor',
  },
  heartbeat: {
    summary: 'the claim holder extends its lease',
    from: ['claimed'],
    to: 'same',
    emits: [],
    run: 'any',
    kinds: CLAIMABLE_KINDS,
    refusal: 'lease_lost',
    actor: 'executor',
  },
  commit: {
    summary:
      "the claim holder (an executor, or a hooked agent reporting its own call) records the call's result or failure",
    from: ['claimed'],
    to: ['succeeded', 'failed'],
    emits: ['task.succeeded', 'task.failed'],
    run: 'any',
    kinds: CLAIMABLE_KINDS,
    refusal: 'lease_lost',
    actor: 'executor',
  },
  release: {
    summary:
      'the claim holder hands back a claim whose tool it never started: the row returns to the inbox at once, or is canceled when its run ended',
    from: ['claimed'],
    to: ['runnable', 'canceled'],
    emits: ['task.released', 'task.canceled'],
    run: 'any',
    kinds: CLAIMABLE_KINDS,
    refusal: 'lease_lost',
    actor: 'executor',
  },
  settle_held_call: {
    summary:
      "a call still held when its run ended fails outcome_unknown (it may have run), never canceled: a hooked agent's own call at the stop or when its lease lapses (a late report corrects it), an executor's when its lease lapses without a commit",
    from: ['claimed'],
    to: ['failed'],
    emits: ['task.failed'],
    run: 'any',
    kinds: ['tool'],
    refusal: 'lease_lost',
    actor: 'kernel',
  },
  lease_lapse: {
    summary:
      "a claim whose lease lapsed: an executor's row returns to the inbox; a hooked agent's own call fails outcome_unknown (it may have run), never granted again",
    from: ['claimed'],
    to: ['runnable', 'failed'],
    emits: ['task.lease_expired', 'task.failed'],
    run: 'running',
    refusal: 'lease_lost',
    actor: 'kernel',
  },
  fence: {
    summary:
      'after a restore, a call an executor could have run since the backup (granted or claimed) fails outcome_unknown and holds its run for a person',
    from: ['runnable', 'claimed'],
    to: ['failed'],
    emits: ['task.failed'],
    run: 'running',
    kinds: CLAIMABLE_KINDS,
    refusal: 'task_not_waiting',
    actor: 'kernel',
  },
  guardrail_refusal: {
    summary:
      "a granted or approved call not yet handed out that an admin's guardrail added since denies fails approval_denied with the guardrail's reason (read by the model)",
    from: ['runnable'],
    to: ['failed'],
    emits: ['task.denied'],
    run: 'running',
    kinds: ['tool'],
    refusal: 'task_not_waiting',
    actor: 'kernel',
  },
  park_expiry: {
    summary:
      "a park nobody decided in time expires (approval_expired), then follows the row's on_failure",
    from: ['needs_approval'],
    to: ['timed_out'],
    emits: ['task.expired'],
    run: 'running',
    refusal: 'task_not_waiting',
    actor: 'kernel',
  },
  question_expiry: {
    summary: 'a question nobody answered in time expires (question_expired) and always holds',
    from: ['awaiting_input'],
    to: ['timed_out'],
    emits: ['task.expired'],
    run: 'running',
    refusal: 'task_not_waiting',
    actor: 'kernel',
  },
  hook_timeout: {
    summary: 'a hook that committed nothing within its timeout_ms fails (hook_timed_out) and holds',
    from: ['runnable', 'claimed'],
    to: ['timed_out'],
    emits: ['task.expired'],
    run: 'running',
    kinds: ['hook'],
    refusal: 'task_not_waiting',
    actor: 'kernel',
  },
  cancel: {
    summary:
      'a stop, an abandon or the end of the run cancels unstarted work (and hook work mid-claim)',
    from: ['ready', 'runnable', 'claimed', 'needs_approval', 'awaiting_input'],
    to: ['canceled'],
    emits: ['task.canceled'],
    run: 'any',
    refusal: 'task_not_waiting',
    actor: 'kernel',
  },
  readdress: {
    summary: "revoking an application's last executor clears the addressee of its held rows",
    from: WAITING,
    to: 'same',
    emits: ['task.readdressed'],
    run: 'any',
    refusal: 'task_not_waiting',
    actor: 'kernel',
  },
  fail_hook: {
    summary: 'a hook decision the kernel cannot follow fails its row and holds the run',
    from: ['succeeded'],
    to: ['failed'],
    emits: ['task.failed'],
    run: 'running',
    kinds: ['hook'],
    refusal: 'task_not_waiting',
    actor: 'kernel',
  },
  correct_outcome: {
    summary:
      "a hooked call its agent reported as run is failed after all: the agent's transcript shows it failed",
    from: ['succeeded'],
    to: ['failed'],
    emits: ['task.failed'],
    run: 'any',
    kinds: ['tool'],
    refusal: 'task_not_waiting',
    actor: 'kernel',
  },
  late_report: {
    summary:
      "a hooked call the kernel closed unreported (outcome_unknown, or not_run at its turn's stop) is reported after all: the row records what ran, and nothing is granted",
    from: ['failed'],
    to: ['succeeded', 'failed'],
    emits: ['task.succeeded', 'task.failed'],
    run: 'any',
    kinds: ['tool'],
    refusal: 'task_not_waiting',
    actor: 'kernel',
    admits: (row) =>
      row.error_code !== null && LATE_REPORTABLE.includes(row.error_code)
        ? null
        : `failed ${row.error_code ?? 'without a code'}: only a call closed unreported (outcome_unknown, not_run) takes a late report`,
  },
  summarize: {
    summary: "the kernel records a summarizer row's summary, or its failure",
    from: ['runnable'],
    to: ['succeeded', 'failed'],
    emits: ['task.succeeded', 'task.failed'],
    run: 'running',
    kinds: ['summary'],
    refusal: 'task_not_waiting',
    actor: 'kernel',
  },
} as const satisfies Record<string, TaskVerbRule>;

/** A verb of the task state machine. */
export type TaskVerb = keyof typeof TASK_VERBS;

/** Every verb, in the table's order. */
export const TASK_VERB_NAMES = Object.keys(TASK_VERBS) as TaskVerb[];

/** The states a verb may leave a row in. */
export type ToState<V extends TaskVerb> = (typeof TASK_VERBS)[V]['to'] extends readonly TaskState[]
  ? (typeof TASK_VERBS)[V]['to'][number]
  : TaskState;

/** The events a verb may emit. */
export type EmittedBy<V extends TaskVerb> = (typeof TASK_VERBS)[V]['emits'][number];

/**
 * A task event as the caller of a verb states it: a type the verb may emit
 * and that type's declared data from core, without `state` (the move adds
 * the state the row reached). A field core does not declare is a compile error.
 */
export type TaskEventOf<V extends TaskVerb> = {
  [T in EmittedBy<V>]: { type: T; data?: Omit<EventData<T>, 'state'> };
}[EmittedBy<V>];

/** The rule of a verb, widened for reading. */
export function verbRule(verb: TaskVerb): TaskVerbRule {
  return TASK_VERBS[verb];
}

/**
 * Checks that a verb may move a row of a run, without touching the store.
 * @throws AirlockError run_not_running when the verb needs a running run and
 * the run ended; the verb's refusal code (409) when the row's state or kind
 * does not admit it.
 */
export function checkMove(
  verb: TaskVerb,
  row: Pick<TaskTable, 'key' | 'state' | 'kind' | 'on_failure' | 'error_code'>,
  run: { id: string; state: string },
): void {
  const rule = verbRule(verb);
  if (rule.run === 'running' && run.state !== 'running') {
    throw new AirlockError(
      'run_not_running',
      `run ${run.id} is ${run.state}: ${verb} moves no row of a run that is no longer running`,
    );
  }
  if (rule.kinds && !rule.kinds.includes(row.kind)) {
    throw new AirlockError(
      rule.refusal,
      `task ${row.key} is a ${row.kind} row; ${verb} does not apply`,
    );
  }
  if (!rule.from.includes(row.state)) {
    throw new AirlockError(
      rule.refusal,
      `task ${row.key} is ${row.state}; ${verb} needs ${rule.from.join(' or ')}`,
    );
  }
  const refused = rule.admits?.(row);
  if (refused) throw new AirlockError(rule.refusal, `task ${row.key} ${refused}`);
}

/**
 * Refuses a person's decision on a waiting row whose deadline has passed,
 * in the moments before the clocks' sweep expires it: past its deadline a
 * park or a question takes no decision on any surface.
 * @throws AirlockError task_not_waiting.
 */
export function checkStillWaiting(
  row: Pick<TaskTable, 'key' | 'state' | 'deadline_at'>,
  now: number,
): void {
  if (isWaiting(row.state) && row.deadline_at !== null && row.deadline_at <= now) {
    throw new AirlockError(
      'task_not_waiting',
      `task ${row.key} stopped waiting at ${new Date(row.deadline_at).toISOString()}: its decision expired`,
    );
  }
}

/** True when a verb may leave a row in a state. */
export function mayReach(verb: TaskVerb, from: TaskState, to: TaskState): boolean {
  const rule = verbRule(verb);
  return rule.to === 'same' ? to === from : rule.to.includes(to);
}

import type { TaskTable } from '../../store/schema.js';
import { OUTCOME_UNKNOWN, type ToState } from './task-machine.js';
import type { TaskKind } from './task-states.js';

/** What a person's retry does with a holding row: the first entry whose kinds and codes match. */
export interface RetryRoute {
  /** How the retry moves the row (`refuse` answers 409 `retry_refused` and keeps the hold). */
  route: 'refuse' | 'ask_again' | 'stage_again' | 'run_again';
  /** The row kinds the entry applies to; absent: every kind. */
  kinds?: readonly TaskKind[];
  /** The failure codes the entry applies to; absent: every code. */
  codes?: readonly string[];
  /** The states the retry may leave the row in (none for a refusal). */
  to: readonly ToState<'retry'>[];
  /** What it does, in one line (printed in docs/task-states.md). */
  summary: string;
}

/**
 * Where a person's retry sends a row that holds its run, by the row's kind and
 * failure code: the first entry that matches decides. Every state an entry
 * may leave a row in is one some verb moves that kind of row on from (the
 * task-machine tests check it), so no retry strands its run.
 */
export const RETRY_ROUTES: readonly RetryRoute[] = [
  {
    route: 'refuse',
    kinds: ['ask'],
    codes: ['invalid_question'],
    to: [],
    summary:
      'an invalid question cannot be asked again unchanged: 409 `retry_refused`, the hold stays (abandon or stop the run)',
  },
  {
    route: 'ask_again',
    kinds: ['ask'],
    to: ['awaiting_input'],
    summary: 'a declined or expired question waits for an answer again, with a fresh clock',
  },
  {
    route: 'stage_again',
    codes: ['approval_denied', 'approval_expired', OUTCOME_UNKNOWN],
    to: ['runnable', 'needs_approval'],
    summary:
      'a row the approval stage or a person refused, whose park expired, or whose outcome is unknown (outcome_unknown: a hooked agent let its claim lapse unreported, or a restore fenced it; it may have run), crosses the stage again as it stands now (a guardrail added since binds it): granted, parked afresh with a fresh clock and its approvals started again, or refused again (409 `retry_refused`, the hold stays)',
  },
  {
    route: 'run_again',
    to: ['runnable', 'needs_approval'],
    summary:
      'any other failure runs again (a hook with its timeout afresh), once a tool call or hook crossed the approval stage again: refused now (a guardrail added since), 409 `retry_refused` and the hold stays; one the stage parks now, or people approved at a park, or a member granted by appending it or by their own run, parks again instead, its approvals started afresh, when the approval policy does not let the retrier alone approve it',
  },
];

/** The retry route of a row: the first entry of {@link RETRY_ROUTES} its kind and failure match. */
export function retryRoute(row: Pick<TaskTable, 'kind' | 'error_code'>): RetryRoute {
  const route = RETRY_ROUTES.find(
    (entry) =>
      (!entry.kinds || entry.kinds.includes(row.kind)) &&
      (!entry.codes || (row.error_code !== null && entry.codes.includes(row.error_code))),
  );
  // The last entry matches every row.
  return route ?? RETRY_ROUTES[RETRY_ROUTES.length - 1]!;
}

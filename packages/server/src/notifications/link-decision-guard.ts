import { AsyncLocalStorage } from 'node:async_hooks';
import { listApprovals } from '../store/approvals.js';
import type { PendingEvent, Tx } from '../store/store.js';
import type { ActionClaim } from './action-links.js';

/**
 * Keeps a mail's two links one decision when they are used at the same
 * moment (issue 27). The link's "spent" check (link-standing.ts) reads the
 * store before the kernel decides; two POSTs that both passed it (the approve
 * and the deny link clicked together, a mail scanner racing a person) would
 * both act. So the check is made again inside the kernel's own transaction,
 * after the run lock it takes, where no other decision on the row can come
 * between: the link's claim rides with the decision (an AsyncLocalStorage
 * scope), and this hook, run at the end of each unit of work that emitted
 * events (Store.onUnitEvents, as the outbox is), rolls the unit back when it
 * is the link's deny and the same member's approval of that version is
 * already recorded. An approval that counted nothing (the kernel counts a
 * member once, and records nothing for a repeat) emits no event, which the
 * scope reports too, so the route can answer that the link was used.
 */

/** What the route learns from a link's decision inside its transaction. */
interface LinkDecisionScope {
  claim: ActionClaim;
  /** The kernel's name of the member the link decides as (`member:cred_…`). */
  principal: string;
  /** Set when the unit recorded this member's approval of the row. */
  approvalCounted: boolean;
  /** Cleared once the decision returned: work it started later (a worker's kick) is not guarded. */
  active: boolean;
}

const scopes = new AsyncLocalStorage<LinkDecisionScope>();

/** Thrown inside the deny's transaction (rolling it back) when the link was spent by an approval. */
export class LinkSpentError extends Error {
  constructor() {
    super('this mail’s links were spent by the member’s approval');
    this.name = 'LinkSpentError';
  }
}

function ofThisLink(scope: LinkDecisionScope, event: PendingEvent): boolean {
  return (
    event.run_id === scope.claim.run_id &&
    event.task_key === scope.claim.task_key &&
    event.principal === scope.principal
  );
}

/**
 * The unit-of-work hook that makes a link's decision take the spent check in
 * its own transaction; it does nothing outside a link's decision.
 * @throws LinkSpentError from the link's deny when the member's approval of the version is recorded.
 */
export function linkDecisionGuard(): (tx: Tx, events: readonly PendingEvent[]) => Promise<void> {
  return async (tx, events) => {
    const scope = scopes.getStore();
    if (!scope?.active) return;
    const own = events.filter((event) => ofThisLink(scope, event));
    if (own.some((event) => event.type === 'task.denied')) {
      const given = await listApprovals(tx, {
        workspaceId: scope.claim.workspace_id,
        runId: scope.claim.run_id,
        taskKey: scope.claim.task_key,
        rowVersion: scope.claim.version,
      });
      if (given.some((approval) => approval.principal === scope.principal)) {
        throw new LinkSpentError();
      }
    }
    if (own.some((e) => e.type === 'task.approval_added' || e.type === 'task.approved')) {
      scope.approvalCounted = true;
    }
  };
}

/**
 * Runs a link's decision with its claim in scope of linkDecisionGuard.
 * Answers what `decide` answered and whether an approve counted.
 * @throws LinkSpentError when the guard refused the deny, and whatever `decide` throws.
 */
export async function decideAsLink<T>(
  claim: ActionClaim,
  decide: () => Promise<T>,
): Promise<{ value: T; approvalCounted: boolean }> {
  const scope: LinkDecisionScope = {
    claim,
    principal: `member:${claim.member}`,
    approvalCounted: false,
    active: true,
  };
  try {
    const value = await scopes.run(scope, decide);
    return { value, approvalCounted: scope.approvalCounted };
  } finally {
    scope.active = false;
  }
}

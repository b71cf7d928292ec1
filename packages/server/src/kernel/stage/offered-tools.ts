import { type Decision, resolveToolName } from '@airlock/core';
import type { RunTable } from '../../store/schema.js';
import type { IncomingCall } from './incoming-call.js';

const offeredByRun = new Map<string, ReadonlySet<string> | null>();
const OFFERED_CACHE_LIMIT = 2000;

/**
 * The names of the tools a run's provider offers its model (the `tools` its
 * configuration lists, as the `openai` provider sends them), or null when the
 * provider lists none (its model is then offered the run's `tool_names`,
 * which the rules already enforce). Only a run whose calls the kernel's own
 * loop asks for has an offer: a hooked session's and a gateway client's
 * model is offered its tools outside the kernel. Parsed once per run (a
 * run's provider never changes).
 */
export function offeredToolsOf(
  run: Pick<RunTable, 'id' | 'loop' | 'provider'>,
): ReadonlySet<string> | null {
  if (run.loop !== 'kernel') return null;
  const cached = offeredByRun.get(run.id);
  if (cached !== undefined) return cached;
  const tools = (JSON.parse(run.provider) as { tools?: unknown }).tools;
  const offered = Array.isArray(tools)
    ? new Set(tools.map((tool) => (tool as { name: string }).name))
    : null;
  if (offeredByRun.size >= OFFERED_CACHE_LIMIT) offeredByRun.clear();
  offeredByRun.set(run.id, offered);
  return offered;
}

/**
 * The declared rules' decision of a model call, refused when the call names
 * a tool the run's provider never offered the model (a hallucination or a
 * prompt injection), whatever the mode: the refusal a call outside
 * `tool_names` gets, `approval_denied`, saying why, which the model reads.
 * A called name counts as offered when it, its name without a runner
 * qualification, or the tool an alias resolves it to is offered. A deny
 * rule's refusal stands as it is; author and kernel rows are unchanged.
 *
 * The offer is checked where a call crosses the stage (its plant, an
 * approve, an edit, a retry), not at a claim: a run's offer never changes,
 * so a row the stage let through stays let through. The one exception is a
 * row a kernel older than this check planted and granted: it keeps its grant
 * until it runs. That is a one-time window at an upgrade, for rows already
 * runnable, and not worth a read of the run's provider at every claim;
 * a parked row meets the check at its approve.
 */
export function refuseUnoffered(
  run: Pick<RunTable, 'id' | 'loop' | 'provider'>,
  call: Pick<IncomingCall, 'origin' | 'toolName'>,
  base: Decision,
): Decision {
  if (call.origin !== 'model' || base.outcome === 'denied') return base;
  const offered = offeredToolsOf(run);
  if (
    offered === null ||
    offered.has(base.tool_name) ||
    offered.has(call.toolName) ||
    offered.has(resolveToolName(call.toolName))
  ) {
    return base;
  }
  return {
    outcome: 'denied',
    granted_by: null,
    error: {
      code: 'approval_denied',
      detail: `${base.tool_name} is not among the tools this run's provider offers the model`,
    },
    matched: base.matched,
    tool_name: base.tool_name,
  };
}

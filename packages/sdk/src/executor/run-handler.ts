import type { ClaimView, TaskView } from '../views.js';
import { checkedOutcome, failed, type Ran, thrownOutcome } from './outcome.js';
import type { ToolHandler } from './types.js';

/** What {@link runHandler} runs: the executor's tools, the claimed row and its signal. */
export interface HandlerRun {
  tools: Record<string, ToolHandler<never>>;
  task: TaskView;
  claim: ClaimView;
  /** Aborted when the lease is lost, the deadline passes or the executor closes. */
  signal: AbortSignal;
  /** The kernel's body limit, which decides whether the result commits as it is. */
  bodyLimit: number;
}

/**
 * Runs the handler of a claimed row's tool and says what its run comes to:
 * its result, what it threw (the signal's reason once aborted), or
 * `unknown_tool` for a tool the executor does not serve.
 */
export async function runHandler(run: HandlerRun): Promise<Ran> {
  const { tools, task, signal } = run;
  // Only the handlers given are tools: `constructor` or `toString` would find Object's own.
  const handler = Object.hasOwn(tools, task.tool_name) ? tools[task.tool_name] : undefined;
  if (!handler) {
    return {
      outcome: failed('unknown_tool', `this executor does not serve ${task.tool_name}`),
      commitsAsIs: true,
    };
  }
  let value: unknown;
  try {
    value = await handler(task.tool_input as never, {
      signal,
      task,
      run_id: task.run_id,
      task_key: task.key,
      attempt: run.claim.task.attempts,
    });
  } catch (error) {
    return { outcome: thrownOutcome(signal.aborted ? signal.reason : error), commitsAsIs: true };
  }
  return checkedOutcome(task, value, run.bodyLimit);
}

import { expect } from 'vitest';
import { type Deployment, deploy } from './harness.js';
import type { Backend } from './stores.js';

/** The agent plane's neutral hook endpoint. */
export const HOOK_EVENTS_PATH = '/agent_api/v1/hooks/events';

/** Posts one hook event of Claude Code's session `s-1` (the body adds the event's fields). */
export function postHookEvent(d: Deployment, body: Record<string, unknown>) {
  return d.agent.post(HOOK_EVENTS_PATH, { agent: 'claude-code', session_id: 's-1', ...body });
}

/** A `pre_tool` event for a `Bash` call of `command`, with the agent's call id. */
export function bashPreTool(command: string, id: string) {
  return { event: 'pre_tool', tool_name: 'Bash', tool_input: { command }, tool_use_id: id };
}

/** A `post_tool` event reporting that the `Bash` call of `command` ran, with what it printed. */
export function bashPostTool(
  command: string,
  id: string,
  outcome: 'succeeded' | 'failed',
  output: string,
) {
  return {
    event: 'post_tool',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: id,
    outcome,
    output,
  };
}

/** Rules that grant the `Bash` calls of `make`. */
const MAKE_RULES = [{ tool: 'Bash', path: 'command', match: 'make*', verdict: 'allow' }];

/**
 * A deployment whose hooked session's `make test` (`tu-1`) was granted and
 * claimed for the agent a minute ago by the kernel's clock, so the grant is
 * older than a stop's wait for reports; answers it and the call's run.
 */
export async function grantedMakeTestAMinuteAgo(
  backend: Backend,
): Promise<{ d: Deployment; runId: string }> {
  let offset = 0;
  const d = await deploy(backend, { clock: () => Date.now() + offset });
  await d.agent.put('/agent_api/v1/profile/configuration', {
    approval_mode: 'rules',
    approval_rules: MAKE_RULES,
  });
  const granted = await postHookEvent(d, bashPreTool('make test', 'tu-1'));
  expect(granted.body).toMatchObject({ verdict: 'allow', task_state: 'claimed' });
  offset += 60_000;
  return { d, runId: granted.body.run_id as string };
}

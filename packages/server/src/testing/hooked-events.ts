import type { Deployment } from './harness.js';

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

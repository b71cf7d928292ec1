/*
 * The `PreToolUse` and `PostToolUse` payloads Claude Code posts for one granted shell call, as the
 * benches that drive the kernel's hook endpoint send them.
 */

/** Where the benches post them: Claude Code's hook endpoint of the kernel at `url`. */
export function claudeHookUrl(url: string): string {
  return `${url}/agent_api/v1/hooks/claude-code/default`;
}

/**
 * Posts one event to Claude Code's hook endpoint of the kernel at `url` as an agent whose token
 * is `token`, and reads the answer; throws when the kernel refuses it.
 */
export async function postClaudeEvent(url: string, token: string, body: object): Promise<void> {
  const answer = await fetch(claudeHookUrl(url), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`the hook answered ${answer.status}: ${text}`);
}

/** The two events of call `i` of session `sessionId`: before it runs, and what it printed. */
export function claudeToolEvents(sessionId: string, i: number): [pre: object, post: object] {
  const base = {
    session_id: sessionId,
    transcript_path: '/tmp/t',
    cwd: '/tmp',
    permission_mode: 'default',
  };
  const call = { tool_name: 'Bash', tool_input: { command: `ls ${i}` }, tool_use_id: `tu${i}` };
  return [
    { ...base, hook_event_name: 'PreToolUse', ...call },
    {
      ...base,
      hook_event_name: 'PostToolUse',
      ...call,
      tool_response: { stdout: 'ok', stderr: '', interrupted: false },
    },
  ];
}

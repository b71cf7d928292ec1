import { HOOKED_OUTPUT_MAX_BYTES } from '@airlock/core';
import { claudeCode, runHook } from '@airlock/hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { bashPostTool, bashPreTool, postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/**
 * A call whose output is longer than its row keeps (16 KiB): the row keeps its start and says
 * that the rest was cut, rather than holding a cut output as if it were all the call printed.
 * Through the Node.js hook client, an output past the kernel's 16 MiB body limit is reported too
 * (the client sends what the kernel keeps), and the session's next call is decided as usual.
 */

const available = (await backends()).filter((backend) => backend.skip === null);
const CUT_NOTE = /\n\[Airlock: the output was longer than 16384 bytes; only its start is kept\]$/;

async function rowsOf(d: Deployment) {
  const runs = (await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[];
  return (await d.member.get(`${d.ws}/runs/${runs[0]?.id}/tasks`)).body.tasks as {
    key: string;
    state: string;
    result: { content?: { text?: string }[] } | null;
  }[];
}

/** The text a hooked call's row keeps as what it printed. */
function keptText(row: { result: { content?: { text?: string }[] } | null } | undefined) {
  return row?.result?.content?.[0]?.text ?? '';
}

describe.each(available)('an output longer than a row keeps ($name)', (backend) => {
  let d: Deployment;
  afterEach(async () => {
    await d?.close();
  });

  it('a report of 100 KB: the row keeps its start and says it was cut', async () => {
    d = await deploy(backend);
    await d.agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'rules',
      approval_rules: [{ tool: '*', verdict: 'allow' }],
    });
    expect((await postHookEvent(d, bashPreTool('cat big.log', 'tu-1'))).body.verdict).toBe('allow');
    const reported = await postHookEvent(
      d,
      bashPostTool('cat big.log', 'tu-1', 'succeeded', 'é'.repeat(50_000)),
    );
    expect(reported.status).toBe(200);
    const short = await postHookEvent(d, bashPreTool('ls', 'tu-2'));
    await postHookEvent(d, bashPostTool('ls', 'tu-2', 'succeeded', 'a\n'));
    expect(short.body.verdict).toBe('allow');
    const [long, listed] = await rowsOf(d);
    expect(long?.state).toBe('succeeded');
    const kept = keptText(long);
    expect(kept).toMatch(CUT_NOTE);
    expect(kept.startsWith('é'.repeat(1000))).toBe(true);
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(HOOKED_OUTPUT_MAX_BYTES);
    // An output that fits is kept whole, with no note.
    expect(keptText(listed)).toBe('a\n');
  });

  it("Claude Code's PostToolUse of 17 MiB through the Node.js client: recorded as cut, the next call decided", async () => {
    d = await deploy(backend);
    await d.agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'rules',
      approval_rules: [{ tool: '*', verdict: 'allow' }],
    });
    const env = { AIRLOCK_URL: d.url, AIRLOCK_TOKEN: d.tokens.agent, HOME: '/nonexistent' };
    const hook = (payload: Record<string, unknown>) =>
      runHook({
        protocol: claudeCode,
        env,
        input: JSON.stringify({ session_id: 's1', ...payload }),
      });
    const call = {
      tool_name: 'Bash',
      tool_input: { command: 'cat huge.log' },
      tool_use_id: 'tu-1',
    };
    const pre = await hook({ hook_event_name: 'PreToolUse', ...call });
    expect(JSON.parse(pre.stdout).hookSpecificOutput.permissionDecision).toBe('allow');
    const post = await hook({
      hook_event_name: 'PostToolUse',
      ...call,
      tool_response: { stdout: 'x'.repeat(17 * 1024 * 1024), stderr: '' },
    });
    // A recorded report says nothing to the user.
    expect(post).toEqual({ stdout: '{}\n', stderr: '', exitCode: 0 });
    const next = await hook({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'tu-2',
    });
    expect(JSON.parse(next.stdout).hookSpecificOutput.permissionDecision).toBe('allow');
    const [huge] = await rowsOf(d);
    expect(huge?.state).toBe('succeeded');
    expect(keptText(huge)).toMatch(CUT_NOTE);
  }, 60_000);
});

import { HOOKED_OUTPUT_MAX_BYTES } from '@airlock/core';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

/**
 * A hook payload past the 16 MiB a body may hold, posted as the agent sends it to the kernel's
 * own endpoints (Claude Code's HTTP hook, the sh and bash clients): a PostToolUse of a Bash
 * that printed 17 MiB, or of an Edit of a 17 MiB file (which carries the file). What ran
 * is recorded with the start of its output and a note that it was cut, instead of being refused
 * 413 and the row left outcome_unknown; a tool check that large is refused in the agent's own
 * format, since a check of a cut input could grant what the cut part does.
 */

const available = (await backends()).filter((backend) => backend.skip === null);
const CUT_NOTE = /\n\[Airlock: the output was longer than 16384 bytes; only its start is kept\]$/;
const HUGE = 17 * 1024 * 1024;
const CLAUDE = '/agent_api/v1/hooks/claude-code/default';

async function rowsOf(d: Deployment) {
  const runs = (await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[];
  return (await d.member.get(`${d.ws}/runs/${runs[0]?.id}/tasks`)).body.tasks as {
    key: string;
    state: string;
    result: { content?: { text?: string }[] } | null;
  }[];
}

describe.each(available)('a hook payload past 16 MiB ($name)', (backend) => {
  let d: Deployment;
  afterEach(async () => {
    await d?.close();
  });

  it("Claude Code's PostToolUse of a Bash that printed 17 MiB is recorded, cut", async () => {
    d = await deploy(backend);
    await d.agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'rules',
      approval_rules: [{ tool: '*', verdict: 'allow' }],
    });
    const call = {
      session_id: 's1',
      tool_name: 'Bash',
      tool_input: { command: 'cat huge.log' },
      tool_use_id: 'tu-1',
    };
    const pre = await d.agent.post(CLAUDE, { ...call, hook_event_name: 'PreToolUse' });
    expect(pre.body.hookSpecificOutput.permissionDecision).toBe('allow');
    const post = await d.agent.post(CLAUDE, {
      ...call,
      hook_event_name: 'PostToolUse',
      tool_response: { stdout: `start of log ${'x'.repeat(HUGE)}`, stderr: '', interrupted: false },
    });
    expect(post).toEqual({ status: 200, body: {} });
    const [row] = await rowsOf(d);
    expect(row?.state).toBe('succeeded');
    const kept = row?.result?.content?.[0]?.text ?? '';
    expect(kept).toContain('start of log xxx');
    expect(kept).toMatch(CUT_NOTE);
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(HOOKED_OUTPUT_MAX_BYTES);
  }, 60_000);

  it("Claude Code's PostToolUse of an Edit of a 17 MiB file (carrying the file) is recorded", async () => {
    d = await deploy(backend);
    await d.agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'rules',
      approval_rules: [{ tool: '*', verdict: 'allow' }],
    });
    // Escapes and characters of two and three bytes: the cut falls inside neither.
    const originalFile = `é"\\\n${'€'.repeat(HUGE / 3)}`;
    const call = {
      session_id: 's2',
      tool_name: 'Edit',
      tool_input: { file_path: '/repo/big.txt', old_string: 'é', new_string: 'e' },
      tool_use_id: 'tu-1',
    };
    const pre = await d.agent.post(CLAUDE, { ...call, hook_event_name: 'PreToolUse' });
    expect(pre.body.hookSpecificOutput.permissionDecision).toBe('allow');
    const post = await d.agent.post(CLAUDE, {
      ...call,
      hook_event_name: 'PostToolUse',
      tool_response: {
        filePath: '/repo/big.txt',
        oldString: 'é',
        newString: 'e',
        originalFile,
        structuredPatch: [],
      },
    });
    expect(post).toEqual({ status: 200, body: {} });
    const [row] = await rowsOf(d);
    expect(row?.state).toBe('succeeded');
    const kept = row?.result?.content?.[0]?.text ?? '';
    // The file's start as JSON, without the closing quote.
    expect(kept).toContain(
      `"originalFile":${JSON.stringify(originalFile.slice(0, 100)).slice(0, -1)}`,
    );
    expect(kept).toMatch(CUT_NOTE);
  }, 60_000);

  it("Gemini CLI's AfterTool of a shell command that printed 17 MiB is recorded, cut", async () => {
    d = await deploy(backend);
    await d.agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'rules',
      approval_rules: [{ tool: '*', verdict: 'allow' }],
    });
    const gemini = '/agent_api/v1/hooks/gemini/default';
    const call = {
      session_id: 'g1',
      tool_name: 'run_shell_command',
      tool_input: { command: 'cat huge.log' },
      cwd: '/repo',
    };
    const before = await d.agent.post(gemini, { ...call, hook_event_name: 'BeforeTool' });
    expect(before.body.decision).toBe('allow');
    const after = await d.agent.post(gemini, {
      ...call,
      hook_event_name: 'AfterTool',
      tool_response: { llmContent: `start ${'y'.repeat(HUGE)}`, returnDisplay: 'y' },
    });
    expect(after).toEqual({ status: 200, body: {} });
    const [row] = await rowsOf(d);
    expect(row?.state).toBe('succeeded');
    const kept = row?.result?.content?.[0]?.text ?? '';
    expect(kept.startsWith('start yyy')).toBe(true);
    expect(kept).toMatch(CUT_NOTE);
  }, 60_000);

  it("a PreToolUse of 17 MiB is refused in Claude Code's format, and nothing is planted", async () => {
    d = await deploy(backend);
    await d.agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'rules',
      approval_rules: [{ tool: '*', verdict: 'allow' }],
    });
    // Cut to its start, this command would read as an echo.
    const pre = await d.agent.post(CLAUDE, {
      session_id: 's3',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: `echo ${'a'.repeat(HUGE)}; rm -rf ./build` },
      tool_use_id: 'tu-1',
    });
    expect(pre.status).toBe(200);
    expect(pre.body.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(pre.body.hookSpecificOutput.permissionDecisionReason).toContain('too large');
    expect((await d.member.get(`${d.ws}/runs`)).body.runs).toEqual([]);
    // The Node.js client's endpoint refuses it as too large, as below its limit it never did.
    const event = await d.agent.post('/agent_api/v1/hooks/events', {
      agent: 'claude-code',
      session_id: 's3',
      event: 'pre_tool',
      tool_name: 'Bash',
      tool_input: { command: `echo ${'a'.repeat(HUGE)}; rm -rf ./build` },
      tool_use_id: 'tu-2',
    });
    expect(event.body.error.code).toBe('payload_too_large');
    expect((await d.member.get(`${d.ws}/runs`)).body.runs).toEqual([]);
  }, 60_000);
});

describe.each(available)('a hostile hook body past 16 MiB ($name)', (backend) => {
  it('gets a stable error, and the kernel answers the next event', async () => {
    const d = await deploy(backend);
    onTestFinished(() => d.close());
    await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'rules' });
    const long = 'x'.repeat(HUGE);
    const bodies: [string, string][] = [
      [`${'['.repeat(10_000)}"${long}"${']'.repeat(10_000)}`, 'input_too_deep'],
      [
        `{"session_id":"s1","hook_event_name":"PostToolUse","tool_response":"${long}`,
        'invalid_json',
      ],
      [`{"a":"${long}\\x"}`, 'invalid_json'],
      [
        `{${Array.from({ length: 1_500_000 }, (_, i) => `"k${i}":1`).join(',')}}`,
        'payload_too_large',
      ],
      [`{"a":"${long}","a":"b"}`, 'invalid_json'],
    ];
    for (const [body, code] of bodies) {
      const answer = await d.agent.post(CLAUDE, body);
      expect(answer.body.error.code).toBe(code);
    }
    const prompt = await d.agent.post(CLAUDE, {
      session_id: 's1',
      hook_event_name: 'UserPromptSubmit',
      prompt: 'hello',
    });
    expect(prompt).toEqual({ status: 200, body: {} });
  }, 60_000);
});

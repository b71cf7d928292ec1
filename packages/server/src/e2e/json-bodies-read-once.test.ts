import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../testing/harness.js';
import { deploy } from '../testing/harness.js';
import { HOOK_EVENTS_PATH } from '../testing/hooked-events.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

/** Sends raw JSON text with a token; answers the status and the kernel error (REST's or tRPC's). */
async function send(d: Deployment, token: string, path: string, text: string) {
  const response = await fetch(`${d.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: text,
  });
  const body = await response.json();
  return { status: response.status, error: body?.error?.data?.error ?? body?.error };
}

const startRun = (extra: string) =>
  `{"approval_mode":"ask","input":"x",${extra}"provider":{"kind":"scripted","rounds":[{"final":"f"}]}}`;

const preTool = (toolInput: string) =>
  `{"agent":"claude-code","session_id":"s-1","event":"pre_tool","tool_name":"Bash","tool_use_id":"t1","tool_input":${toolInput}}`;

describe('a JSON body is read one way: no key twice, no number read as another', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!);
    // Hooked calls are decided under a profile: with none, a well-formed event is refused too.
    const profile = {
      approval_mode: 'rules',
      approval_rules: [{ tool: 'Bash', verdict: 'allow' }],
    };
    expect((await d.agent.put('/agent_api/v1/profile/configuration', profile)).status).toBe(200);
  });
  afterAll(async () => {
    await d.close();
  });

  /** What the workspace holds: its runs and its audit records, which a refused call must not change. */
  async function state() {
    const runs = (await d.member.get(`${d.ws}/runs?limit=1000`)).body.runs.length;
    const audit = (
      await fetch(`${d.url}${d.ws}/audit`, {
        headers: { authorization: `Bearer ${d.tokens.member}` },
      }).then((r) => r.text())
    ).length;
    return { runs, audit };
  }

  it('refuses a key named twice over REST, at the top and inside tool_input, naming its pointer', async () => {
    const before = await state();
    const top = await send(
      d,
      d.tokens.agent,
      `${d.ws}/runs`,
      startRun('"approval_mode":"bypass",'),
    );
    expect(top.status).toBe(400);
    expect(top.error.code).toBe('invalid_json');
    expect(top.error.problems).toEqual([
      expect.objectContaining({ code: 'duplicate_key', pointer: '/approval_mode' }),
    ]);
    const nested = await send(
      d,
      d.tokens.agent,
      HOOK_EVENTS_PATH,
      preTool('{"command":"ls","command":"rm -rf /"}'),
    );
    expect(nested.status).toBe(400);
    expect(nested.error.code).toBe('invalid_json');
    expect(nested.error.problems[0].pointer).toBe('/tool_input/command');
    expect(nested.error.detail).toContain('/tool_input/command');
    const native = await send(
      d,
      d.tokens.agent,
      '/agent_api/v1/hooks/claude-code/default',
      '{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"ls","command":"rm"}}',
    );
    expect(native.status).toBe(400);
    expect(native.error.problems[0].pointer).toBe('/tool_input/command');
    expect(await state()).toEqual(before);
  });

  it('refuses a key named twice over tRPC, in a body and in a query input', async () => {
    const before = await state();
    const body = startRun(`"workspace_id":"${d.workspaceId}","input":"y",`);
    const mutation = await send(d, d.tokens.agent, '/trpc/runs.create', body);
    expect(mutation.status).toBe(400);
    expect(mutation.error.code).toBe('invalid_json');
    expect(mutation.error.problems[0].pointer).toBe('/input');
    const input = encodeURIComponent(`{"workspace_id":"${d.workspaceId}","limit":1,"limit":2}`);
    const response = await fetch(`${d.url}/trpc/runs.list?input=${input}`, {
      headers: { authorization: `Bearer ${d.tokens.member}` },
    });
    const query = (await response.json()).error.data.error;
    expect(response.status).toBe(400);
    expect(query.code).toBe('invalid_json');
    expect(query.problems[0].pointer).toBe('/limit');
    expect(await state()).toEqual(before);
  });

  it('refuses an integer past 2^53 and a number past the largest double, naming the pointer', async () => {
    const before = await state();
    for (const [toolInput, pointer] of [
      ['{"id":12345678901234567890}', '/tool_input/id'],
      ['{"ids":[1,9007199254740993]}', '/tool_input/ids/1'],
      ['{"x":-1e400}', '/tool_input/x'],
    ] as const) {
      const rest = await send(d, d.tokens.agent, HOOK_EVENTS_PATH, preTool(toolInput));
      expect(rest.status, toolInput).toBe(400);
      expect(rest.error.code).toBe('invalid_json');
      expect(rest.error.problems[0]).toMatchObject({ code: 'inexact_number', pointer });
      const trpc = await send(d, d.tokens.agent, '/trpc/hooks.event', preTool(toolInput));
      expect(trpc.status, toolInput).toBe(400);
      expect(trpc.error.problems[0]).toMatchObject({ code: 'inexact_number', pointer });
    }
    expect(await state()).toEqual(before);
  });

  it('takes the same key in sibling objects, and integers a double holds as written', async () => {
    const answer = await send(
      d,
      d.tokens.agent,
      HOOK_EVENTS_PATH,
      preTool('{"a":{"k":1},"b":{"k":9007199254740991},"c":100000000000000000000,"d":1e300}'),
    );
    expect(answer.status, JSON.stringify(answer.error)).toBeLessThan(300);
  });
});

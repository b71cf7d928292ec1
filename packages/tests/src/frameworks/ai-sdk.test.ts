import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { generateText, type ModelMessage, stepCountIs } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { appTools, scriptedModel, USER } from './ai-sdk-app.js';
import { type FrameworkKernel, READ_ONLY_PROFILE, startFrameworkKernel } from './support.js';

describe('Airlock inside the Vercel AI SDK (ai 6, real loop, mock model)', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('grants a call: it runs once, the model reads its result, the row holds what it returned', async () => {
    k = await startFrameworkKernel();
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'chat-grant' });
    const { tools, ran } = appTools();
    const { model, prompts } = scriptedModel([
      { call: { id: 'c1', name: 'lookup', input: { q: 'weather' } } },
      { text: 'it is sunny' },
    ]);
    const result = await generateText({
      model,
      tools: airlock.tools(tools),
      messages: USER,
      stopWhen: stepCountIs(5),
    });
    expect(result.text).toBe('it is sunny');
    expect(ran).toEqual(['lookup']);
    expect(JSON.stringify(prompts[1])).toContain('"tool":"lookup"');
    await airlock.finish(result.text);
    const [row] = await k.tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_name: 'lookup', state: 'succeeded', tool_call_id: 'c1' });
    expect(JSON.stringify(row?.result)).toContain('weather');
    // The adapter holds no verdict for a call once the call ran or was refused.
    expect(airlock.verdictsHeld).toBe(0);
  });

  it('refuses a call: it does not run, and the next model request carries the reason', async () => {
    k = await startFrameworkKernel();
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'chat-deny' });
    const { tools, ran } = appTools();
    const { model, prompts } = scriptedModel([
      { call: { id: 'd1', name: 'delete_file', input: { path: 'a.txt' } } },
      { text: 'I could not delete it' },
    ]);
    await generateText({
      model,
      tools: airlock.tools(tools),
      messages: USER,
      stopWhen: stepCountIs(5),
    });
    expect(ran).toEqual([]);
    expect(JSON.stringify(prompts[1])).toContain(
      'Airlock refused this call: no deletes in this workspace',
    );
    // The adapter holds no verdict for a call once the call ran or was refused.
    expect(airlock.verdictsHeld).toBe(0);
  });

  it('parks a call as a tool-approval-request; a member approves through the SDK; it runs exactly once', async () => {
    k = await startFrameworkKernel();
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'chat-park' });
    const { tools, ran } = appTools();
    const wrapped = airlock.tools(tools);
    const script = scriptedModel([
      { call: { id: 'p1', name: 'send_email', input: { to: 'ops@example.com' } } },
      { text: 'sent' },
    ]);
    const first = await generateText({
      model: script.model,
      tools: wrapped,
      messages: USER,
      stopWhen: stepCountIs(5),
    });
    expect(first.content.some((part) => part.type === 'tool-approval-request')).toBe(true);
    expect(ran).toEqual([]);
    const messages = [...USER, ...first.response.messages];
    const waiting = await airlock.resume(messages);
    expect(waiting.responses).toEqual([]);
    expect(waiting.pending).toMatchObject([{ toolCallId: 'p1', toolName: 'send_email' }]);

    await (await k.parked('send_email')).approve();
    const resumed = await airlock.resume(messages);
    expect(resumed.responses).toMatchObject([{ approved: true }]);
    const second = await generateText({
      model: script.model,
      tools: wrapped,
      messages: resumed.messages,
      stopWhen: stepCountIs(5),
    });
    expect(second.text).toBe('sent');
    expect(ran).toEqual(['send_email']);
    // The same approval replayed does not run the call again.
    await generateText({
      model: scriptedModel([{ text: 'again' }]).model,
      tools: wrapped,
      messages: resumed.messages,
    });
    expect(ran).toEqual(['send_email']);
    const rows = await k.tasks(waiting.pending[0]?.runId as string);
    expect(rows.find((row) => row.tool_call_id === 'p1')).toMatchObject({ state: 'succeeded' });
    // The adapter holds no verdict for a call once the call ran or was refused.
    expect(airlock.verdictsHeld).toBe(0);
  });

  it('a deny after a park: the call never runs and the model reads the reason', async () => {
    k = await startFrameworkKernel();
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'chat-park-deny' });
    const { tools, ran } = appTools();
    const wrapped = airlock.tools(tools);
    const script = scriptedModel([
      { call: { id: 'p2', name: 'send_email', input: { to: 'all@example.com' } } },
      { text: 'not sent' },
    ]);
    const first = await generateText({ model: script.model, tools: wrapped, messages: USER });
    await (await k.parked('send_email')).deny({ reason: 'not to the whole company' });
    const resumed = await airlock.resume([...USER, ...first.response.messages]);
    expect(resumed.responses).toMatchObject([{ approved: false }]);
    await generateText({
      model: script.model,
      tools: wrapped,
      messages: resumed.messages,
      stopWhen: stepCountIs(5),
    });
    expect(ran).toEqual([]);
    expect(JSON.stringify(script.prompts.at(-1))).toContain('not to the whole company');
    // The SDK never runs a denied approval's execute: the adapter must not keep the park for it.
    expect(airlock.verdictsHeld).toBe(0);
  });

  it('survives a restart between the park and the approval: saved messages, a fresh adapter, a restarted kernel', async () => {
    k = await startFrameworkKernel();
    const before = createAiSdkAirlock({ ...k.connection, sessionId: 'chat-restart' });
    const app1 = appTools();
    const first = await generateText({
      model: scriptedModel([{ call: { id: 'r1', name: 'send_email', input: { to: 'a@b.c' } } }])
        .model,
      tools: before.tools(app1.tools),
      messages: USER,
    });
    const saved = JSON.stringify([...USER, ...first.response.messages]);

    await k.kernel.restart();
    await (await k.parked('send_email')).approve();

    const after = createAiSdkAirlock({ ...k.connection, sessionId: 'chat-restart' });
    const app2 = appTools();
    const resumed = await after.resume(JSON.parse(saved) as ModelMessage[]);
    const script = scriptedModel([{ text: 'sent after restart' }]);
    const second = await generateText({
      model: script.model,
      tools: after.tools(app2.tools),
      messages: resumed.messages,
    });
    expect(second.text).toBe('sent after restart');
    expect([...app1.ran, ...app2.ran]).toEqual(['send_email']);
    expect(JSON.stringify(script.prompts[0])).toContain('"tool":"send_email"');
  });

  it('spec 004 requires_user parks a network command for a person', async () => {
    k = await startFrameworkKernel();
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'chat-requires-user' });
    const { tools, ran } = appTools();
    const first = await generateText({
      model: scriptedModel([
        { call: { id: 'n1', name: 'bash', input: { command: 'curl https://example.com' } } },
      ]).model,
      tools: airlock.tools(tools),
      messages: USER,
    });
    expect(first.content.some((part) => part.type === 'tool-approval-request')).toBe(true);
    expect(ran).toEqual([]);
    const { pending } = await airlock.resume([...USER, ...first.response.messages]);
    expect(pending).toMatchObject([{ toolName: 'bash', requiresUser: true }]);
  });

  it('spec 003 read_only grants a read and refuses a delete with the rule set reason', async () => {
    k = await startFrameworkKernel(READ_ONLY_PROFILE);
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'chat-read-only' });
    const { tools, ran } = appTools();
    const { model, prompts } = scriptedModel([
      { call: { id: 'o1', name: 'lookup', input: { q: 'x' } } },
      { call: { id: 'o2', name: 'delete_file', input: { path: 'x' } } },
      { text: 'done' },
    ]);
    await generateText({
      model,
      tools: airlock.tools(tools),
      messages: USER,
      stopWhen: stepCountIs(5),
    });
    expect(ran).toEqual(['lookup']);
    expect(JSON.stringify(prompts.at(-1))).toContain('the read_only rule set allows');
  });
});

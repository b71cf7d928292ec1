import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { generateText, type ModelMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { appTools, scriptedModel, USER } from './ai-sdk-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * A parked call resumed through an adapter is bound to the call a person
 * decided: another input under its call id is refused, an edit runs as the
 * person approved it, and a grant goes to one resume only.
 */
describe('adapter resumes are bound to the decided call', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  /** A generation that parks `send_email` to `to` under `p1`: its saved messages. */
  async function parkedEmail(sessionId: string, to: string): Promise<ModelMessage[]> {
    const airlock = createAiSdkAirlock({ ...k!.connection, sessionId });
    const first = await generateText({
      model: scriptedModel([{ call: { id: 'p1', name: 'send_email', input: { to } } }]).model,
      tools: airlock.tools(appTools().tools),
      messages: USER,
    });
    return [...USER, ...first.response.messages];
  }

  it('refuses a resume that presents another input under the approved call id: nothing runs', async () => {
    k = await startFrameworkKernel();
    const saved = await parkedEmail('bind-edit', 'ops@example.com');
    const approval = await k.parked('send_email');
    await approval.approve();
    // The saved messages edited after the approval: the same call id, another recipient.
    const tampered = JSON.parse(
      JSON.stringify(saved).replaceAll('ops@example.com', 'all@example.com'),
    ) as ModelMessage[];
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'bind-edit' });
    const resumed = await airlock.resume(tampered);
    expect(resumed.responses).toMatchObject([{ approved: false }]);
    expect(resumed.responses[0]?.reason).toContain('call_mismatch');
    const app = appTools();
    await generateText({
      model: scriptedModel([{ text: 'done' }]).model,
      tools: airlock.tools(app.tools),
      messages: resumed.messages,
    });
    expect(app.ran).toEqual([]);
    const [row] = await k.tasks(approval.run_id);
    expect(row).toMatchObject({ state: 'runnable', tool_input: { to: 'ops@example.com' } });
  });

  it('runs the input a person approved with changes, not the one the model composed', async () => {
    k = await startFrameworkKernel();
    const saved = await parkedEmail('bind-changes', 'all@example.com');
    const approval = await k.parked('send_email');
    await approval.approve({ tool_input: { to: 'ops@example.com' } });
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'bind-changes' });
    const resumed = await airlock.resume(saved);
    expect(resumed.responses).toMatchObject([{ approved: true }]);
    const sent: unknown[] = [];
    const app = appTools();
    const tools = {
      ...app.tools,
      send_email: { ...app.tools.send_email, execute: async (input: unknown) => sent.push(input) },
    };
    await generateText({
      model: scriptedModel([{ text: 'sent' }]).model,
      tools: airlock.tools(tools),
      messages: resumed.messages,
    });
    await airlock.flush();
    expect(sent).toEqual([{ to: 'ops@example.com' }]);
    const [row] = await k.tasks(approval.run_id);
    expect(row).toMatchObject({ state: 'succeeded', tool_input: { to: 'ops@example.com' } });
  });

  it('two racing resumes of one approved call: both read the approval, one runs it, the other is refused not_claimable', async () => {
    k = await startFrameworkKernel();
    const saved = await parkedEmail('bind-race', 'ops@example.com');
    await (await k.parked('send_email')).approve();
    const workers = [1, 2].map(() => {
      const airlock = createAiSdkAirlock({ ...k!.connection, sessionId: 'bind-race' });
      return { airlock, app: appTools(), model: scriptedModel([{ text: 'done' }]) };
    });
    const resumed = await Promise.all(workers.map((worker) => worker.airlock.resume(saved)));
    expect(resumed.map((result) => result.responses[0]?.approved)).toEqual([true, true]);
    await Promise.all(
      workers.map((worker, at) =>
        generateText({
          model: worker.model.model,
          tools: worker.airlock.tools(worker.app.tools),
          messages: resumed[at]?.messages ?? [],
        }),
      ),
    );
    expect(workers.flatMap((worker) => worker.app.ran)).toEqual(['send_email']);
    const refused = workers.find((worker) => worker.app.ran.length === 0);
    expect(JSON.stringify(refused?.model.prompts.at(-1))).toContain('not_claimable');
  });

  it("a session's racing checks of one approved call: one allow, the other a deny with the code", async () => {
    k = await startFrameworkKernel();
    await parkedEmail('bind-check', 'ops@example.com');
    await (await k.parked('send_email')).approve();
    const call = { name: 'send_email', input: { to: 'ops@example.com' }, callId: 'p1' };
    const sessions = [1, 2].map(
      () => createAiSdkAirlock({ ...k!.connection, sessionId: 'bind-check' }).session,
    );
    const verdicts = await Promise.all(sessions.map((session) => session.check(call)));
    expect(verdicts.map((verdict) => verdict.verdict).sort()).toEqual(['allow', 'deny']);
    expect(verdicts.find((verdict) => verdict.verdict === 'deny')?.code).toBe('not_claimable');
  });
});

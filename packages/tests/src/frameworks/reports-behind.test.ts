import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { type FrameworkKernel, oneLookupModel, startFrameworkKernel } from './support.js';

/**
 * What a granted call's tool returned is committed to its row behind the
 * call (by default) or before the framework reads it (`awaitReports`). The
 * adapter's requests go through the real `fetch` to a real kernel; a gate
 * holds the report's request back so the test sees each side of it.
 */

const lookup = tool({
  inputSchema: jsonSchema<{ q: number }>({ type: 'object' }),
  execute: async ({ q }) => ({ q }),
});

/** The global fetch, holding every `post_tool` report until `open()`. */
function gatedFetch() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const held: string[] = [];
  const gated: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string' && init.body.includes('"post_tool"')) {
      held.push(init.body);
      await opened;
    }
    return fetch(input, init);
  };
  return { fetch: gated, open, held };
}

describe('a granted call’s report (AI SDK adapter, real kernel)', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('goes behind the call by default: the framework has the result while the row is claimed; flush() commits it', async () => {
    k = await startFrameworkKernel();
    const gate = gatedFetch();
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'behind', fetch: gate.fetch });
    const result = await generateText({
      model: oneLookupModel('b1'),
      tools: airlock.tools({ lookup }),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('done');
    // The report leaves on the event loop's next turn, after the framework had the result.
    while (gate.held.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(gate.held).toHaveLength(1);
    const runId = airlock.session.runId as string;
    expect((await k.tasks(runId))[0]).toMatchObject({ tool_call_id: 'b1', state: 'claimed' });
    // The session's next question waits for the report: calls reach Airlock in the order they ran.
    let asked = false;
    const next = airlock.session
      .check({ name: 'lookup', input: { q: 2 }, callId: 'b2' })
      .then((verdict) => {
        asked = true;
        return verdict;
      });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(asked).toBe(false);
    gate.open();
    await airlock.flush();
    expect((await k.tasks(runId))[0]).toMatchObject({ tool_call_id: 'b1', state: 'succeeded' });
    expect(await next).toMatchObject({ verdict: 'allow' });
  });

  it('a report the kernel never got is thrown by flush() and sent again by the next: the row records what ran', async () => {
    k = await startFrameworkKernel();
    // The kernel out of reach for reports while `down`, as for a restart under the call.
    let down = true;
    const outage: typeof fetch = async (input, init) => {
      if (down && typeof init?.body === 'string' && init.body.includes('"post_tool"')) {
        throw new TypeError('fetch failed');
      }
      return fetch(input, init);
    };
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'lost', fetch: outage });
    await generateText({
      model: oneLookupModel('l1', '{"q":5}'),
      tools: airlock.tools({ lookup }),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    });
    await expect(airlock.flush()).rejects.toMatchObject({ code: 'connection_failed' });
    // Still out of reach: still thrown, the report still kept.
    await expect(airlock.flush()).rejects.toMatchObject({ code: 'connection_failed' });
    const runId = airlock.session.runId as string;
    expect((await k.tasks(runId))[0]).toMatchObject({ tool_call_id: 'l1', state: 'claimed' });
    down = false;
    await airlock.finish('done');
    const [row] = await k.tasks(runId);
    expect(row).toMatchObject({ tool_call_id: 'l1', state: 'succeeded' });
    expect(JSON.stringify(row?.result)).toContain('5');
    // Sent once: nothing is left to send.
    await expect(airlock.flush()).resolves.toBeUndefined();
  });

  it('with awaitReports, a report the kernel never got leaves the result to the model and is thrown by flush()', async () => {
    k = await startFrameworkKernel();
    const unsent: typeof fetch = async (input, init) => {
      if (typeof init?.body === 'string' && init.body.includes('"post_tool"')) {
        throw new TypeError('fetch failed');
      }
      return fetch(input, init);
    };
    const airlock = createAiSdkAirlock({
      ...k.connection,
      sessionId: 'unsent',
      fetch: unsent,
      awaitReports: true,
    });
    const model = oneLookupModel('u1', '{"q":7}');
    await generateText({
      model,
      tools: airlock.tools({ lookup }),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    });
    // The call ran: the model reads what it returned, not the report's failure, and does not
    // make it again as a call that failed.
    const read = JSON.stringify(model.doGenerateCalls.at(-1)?.prompt);
    expect(read).toContain('"output":{"type":"json","value":{"q":7}}');
    expect(read).not.toContain('connection_failed');
    await expect(airlock.flush()).rejects.toMatchObject({ code: 'connection_failed' });
  });

  it('with awaitReports, the framework reads the result only once the row holds it', async () => {
    k = await startFrameworkKernel();
    const gate = gatedFetch();
    const airlock = createAiSdkAirlock({
      ...k.connection,
      sessionId: 'inline',
      fetch: gate.fetch,
      awaitReports: true,
    });
    let done = false;
    const generation = generateText({
      model: oneLookupModel('i1'),
      tools: airlock.tools({ lookup }),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    }).then((result) => {
      done = true;
      return result;
    });
    while (gate.held.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(done).toBe(false);
    gate.open();
    expect((await generation).text).toBe('done');
    const runId = airlock.session.runId as string;
    expect((await k.tasks(runId))[0]).toMatchObject({ tool_call_id: 'i1', state: 'succeeded' });
  });
});

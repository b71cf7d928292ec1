import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

/** Reads server-sent events from a tRPC subscription until `enough` says stop. */
async function readEvents(
  url: string,
  token: string,
  enough: (events: { id: string; data: { type: string; seq: number } }[]) => boolean,
) {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const events: { id: string; data: { type: string; seq: number } }[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (id && data) events.push({ id, data: JSON.parse(data) });
      end = buffer.indexOf('\n\n');
    }
    if (enough(events)) break;
  }
  controller.abort();
  return events;
}

describe('lifecycle feed as a tRPC subscription', () => {
  let d: Deployment;
  const kernels = sharedKernels();
  afterAll(() => kernels.close());
  afterEach(async () => {
    await d?.close();
  });

  it('streams tracked events and resumes from lastEventId', async () => {
    d = await kernels.deploy(sqlite!);
    const run = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'x',
      provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'a' }] }, { final: 'f' }] },
    });
    const url = (input: unknown) =>
      `${d.url}/trpc/runs.feed?input=${encodeURIComponent(JSON.stringify(input))}`;
    const first = await readEvents(
      url({ workspace_id: d.workspaceId, run_id: run.body.id }),
      d.tokens.member,
      (events) => events.some((e) => e.data.type === 'run.attention_required'),
    );
    expect(first[0]!.id).toBe(String(first[0]!.data.seq));
    const last = first.at(-1)!.id;
    await d.member.post(`${d.ws}/runs/${run.body.id}/tasks/t1/approve`);
    const resumed = await readEvents(
      url({ workspace_id: d.workspaceId, run_id: run.body.id, lastEventId: last }),
      d.tokens.member,
      (events) => events.some((e) => e.data.type === 'task.approved'),
    );
    expect(Number(resumed[0]!.id)).toBe(Number(last) + 1);
    const denied = await fetch(url({ workspace_id: d.workspaceId }), {
      headers: { authorization: `Bearer ${d.tokens.executor}`, accept: 'text/event-stream' },
    });
    // tRPC reports a subscription's refusal inside the stream, as a serialized error event.
    const reader = (denied.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('forbidden')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    expect(text).toContain('"code":"forbidden"');
    expect(text).not.toContain('"type":"run.');
  });

  it('starts at the head with after latest, skipping the history, as the WebSocket feed does', async () => {
    d = await kernels.deploy(sqlite!);
    const scripted = { kind: 'scripted', rounds: [{ final: 'f' }] };
    const runBody = (input: string) => ({ approval_mode: 'ask', input, provider: scripted });
    const before = await d.agent.post(`${d.ws}/runs`, runBody('x'));
    expect(before.status).toBe(201);
    const history = await readEvents(
      `${d.url}/trpc/runs.feed?input=${encodeURIComponent(JSON.stringify({ workspace_id: d.workspaceId }))}`,
      d.tokens.member,
      (events) => events.some((e) => e.data.type === 'run.completed'),
    );
    const head = Math.max(...history.map((e) => e.data.seq));
    const url = `${d.url}/trpc/runs.feed?input=${encodeURIComponent(
      JSON.stringify({ workspace_id: d.workspaceId, after: 'latest' }),
    )}`;
    const reading = readEvents(url, d.tokens.member, (events) => events.length > 0);
    // A new run every 200 ms until the feed shows one: however long the subscription takes to
    // start on a busy machine, a run made after it is what it sees first.
    const made: Promise<unknown>[] = [];
    const timer = setInterval(() => made.push(d.agent.post(`${d.ws}/runs`, runBody('y'))), 200);
    const seen = await reading.finally(() => clearInterval(timer));
    await Promise.all(made);
    expect(seen[0]!.data.seq).toBeGreaterThan(head);
    expect(JSON.stringify(seen[0]!.data)).not.toContain(before.body.id);

    const refused = await fetch(
      `${d.url}/trpc/runs.feed?input=${encodeURIComponent(
        JSON.stringify({ workspace_id: d.workspaceId, after: 'earliest' }),
      )}`,
      { headers: { authorization: `Bearer ${d.tokens.member}`, accept: 'text/event-stream' } },
    );
    // tRPC reports a subscription's bad input inside the stream, as a serialized error event.
    const reader = (refused.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('invalid_input')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    expect(text).toContain('"code":"invalid_input"');
    expect(text).not.toContain('"type":"run.');
  });

  it('holds one abort listener per subscription, however many times it waits for events', async () => {
    d = await kernels.deploy(sqlite!);
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const url = `${d.url}/trpc/runs.feed?input=${encodeURIComponent(
        JSON.stringify({ workspace_id: d.workspaceId }),
      )}`;
      const controller = new AbortController();
      const response = await fetch(url, {
        headers: { authorization: `Bearer ${d.tokens.member}`, accept: 'text/event-stream' },
        signal: controller.signal,
      });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = '';
      /** Reads the stream until the run's first event arrived: the subscription waited again before it. */
      const readUntil = async (runId: string) => {
        while (!text.includes(runId)) {
          const { value, done } = await reader.read();
          if (done) throw new Error('the feed ended');
          text += decoder.decode(value, { stream: true });
        }
      };
      // Each run is created only after the feed delivered the last one's events: one wait each.
      for (let i = 0; i < 25; i += 1) {
        const run = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'ask',
          input: 'x',
          provider: { kind: 'scripted', rounds: [{ final: 'f' }] },
        });
        await readUntil(run.body.id);
      }
      controller.abort();
      await reader.cancel().catch(() => {});
      // Node warns once a signal holds more than ten listeners: one per wait would pass that.
      expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('pings a quiet subscription and tells its client when to give up on a silent one', async () => {
    d = await kernels.deploy(sqlite!, { timeouts: { feedPingMs: 200 } });
    const controller = new AbortController();
    const response = await fetch(
      `${d.url}/trpc/runs.feed?input=${encodeURIComponent(
        JSON.stringify({ workspace_id: d.workspaceId, after: 'latest' }),
      )}`,
      {
        headers: { authorization: `Bearer ${d.tokens.member}`, accept: 'text/event-stream' },
        signal: controller.signal,
      },
    );
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    // No event happens in the workspace: whatever arrives past the opening is a ping.
    while ((text.match(/^event: ping$/gm) ?? []).length < 2) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the feed ended: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
    controller.abort();
    await reader.cancel().catch(() => {});
    const connected = /^event: connected\ndata: (.*)$/m.exec(text)?.[1];
    expect(JSON.parse(connected ?? 'null')).toEqual({ reconnectAfterInactivityMs: 1400 });
  });
});

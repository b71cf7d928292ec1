import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BUFFERED } from '../feed/frame-writer.js';
import {
  type Answer,
  claimAndCommit,
  type Deployment,
  deploy,
  runOfCalls,
  waitFor,
} from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

/** Calls in one round, each committing a large result: the model reads them in one event. */
const CALLS = 10;
const RESULT = 900_000;

/**
 * Reads a tRPC feed subscription's server-sent events until `run.completed`,
 * or until the stream ends or reports an error (whose code it returns).
 */
async function follow(url: string, token: string) {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  const types: string[] = [];
  let error: string | null = null;
  let buffer = '';
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (!data) continue;
        if (/^event: serialized-error$/m.test(block)) {
          error = /"code":"([a-z_]+)"/.exec(data)?.[1] ?? 'unknown';
        } else if (/^id: /m.test(block)) types.push(JSON.parse(data).type);
      }
      if (error || types.includes('run.completed')) break;
    }
  } finally {
    controller.abort();
  }
  return { types, error };
}

describe.skipIf(sqlite!.skip !== null)('a tRPC feed over an event larger than its backlog', () => {
  let d: Deployment;
  let runId: string;

  beforeAll(async () => {
    d = await deploy(sqlite!);
    runId = await runOfCalls(d, { mode: 'bypass', tool: 'fetch', count: CALLS, state: 'runnable' });
    for (let n = 1; n <= CALLS; n += 1) {
      const committed = await claimAndCommit(d, runId, `t${n}`, {
        outcome: 'succeeded',
        result: String(n % 10).repeat(RESULT),
      });
      expect(committed.status).toBe(200);
    }
    await waitFor(
      async () => (await d.member.get(`${d.ws}/runs/${runId}`)).body.state === 'completed',
    );
  }, 120_000);
  afterAll(async () => {
    await d.close();
  });

  it('hands the large event over instead of ending with unavailable on every resume', async () => {
    const events: { type: string; data: { fed: unknown[] } }[] = [];
    for (let after: number | null = 0; after !== null; ) {
      const page: Answer = await d.member.get(
        `${d.ws}/runs/${runId}/events?limit=1000&after=${after}`,
      );
      events.push(...page.body.events);
      after = page.body.next_after;
    }
    const read = events.find(
      (event) => event.type === 'run.model_read' && event.data.fed.length === CALLS,
    );
    expect(JSON.stringify(read!.data).length).toBeGreaterThan(MAX_BUFFERED);
    const input = { workspace_id: d.workspaceId, run_id: runId };
    const url = `${d.url}/trpc/runs.feed?input=${encodeURIComponent(JSON.stringify(input))}`;
    const followed = await follow(url, d.tokens.member);
    expect(followed.error).toBeNull();
    expect(followed.types).toContain('run.model_read');
    expect(followed.types.at(-1)).toBe('run.completed');
  });
});

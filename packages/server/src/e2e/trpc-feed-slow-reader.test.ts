import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

describe.skipIf(sqlite!.skip !== null)('a tRPC feed catching up on a long backlog', () => {
  let d: Deployment;
  let runs: number;

  beforeAll(async () => {
    d = await deploy(sqlite!);
    // Calls with large inputs: about 28 MB of events of 14 KB, many pages of the log.
    const pad = 'x'.repeat(14_000);
    for (runs = 0; runs < 24; runs += 1) {
      const calls = Array.from({ length: 64 }, (_, n) => ({ name: 'bash', input: { n, pad } }));
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: 'x',
        provider: { kind: 'scripted', rounds: [{ tool_calls: calls }, { final: 'done' }] },
      });
      expect(created.status).toBe(201);
    }
  }, 180_000);
  afterAll(async () => {
    await d?.close();
  });

  it('is paced by a client that reads late, which receives every event rather than unavailable', async () => {
    const input = encodeURIComponent(JSON.stringify({ workspace_id: d.workspaceId }));
    const controller = new AbortController();
    const response = await fetch(`${d.url}/trpc/runs.feed?input=${input}`, {
      headers: { authorization: `Bearer ${d.tokens.member}`, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    // Long enough for a kernel that does not wait for the client to pass the backlog's bound.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const decoder = new TextDecoder();
    let tail = '';
    let parked = 0;
    let error: string | null = null;
    while (parked < runs * 64 && error === null) {
      const { value, done } = await reader.read();
      if (done) break;
      const text = tail + decoder.decode(value, { stream: true });
      const blocks = text.split('\n\n');
      tail = blocks.pop() ?? '';
      for (const block of blocks) {
        if (/^event: serialized-error$/m.test(block)) error = block;
        else if (/"type":"task\.parked"/.test(block)) parked += 1;
      }
    }
    controller.abort();
    expect(error).toBeNull();
    expect(parked).toBe(runs * 64);
  }, 120_000);
});

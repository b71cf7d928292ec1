import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HOOK_OUTPUT_PREVIEW_MAX_BYTES } from '@airlock/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import { SUMMARY_INSTRUCTION } from './types.js';

const [sqlite] = await backends();

interface ChatMessage {
  role: string;
  content: string | null;
}
interface ChatRequest {
  messages: ChatMessage[];
  tools?: unknown[];
}

/**
 * A chat-completions stand-in: answers the summary instruction with a
 * summary, feedback with a second answer, and otherwise calls `read` for the
 * first `toolRounds` requests, then answers `firstAnswer`.
 */
async function startStub(toolRounds: number, firstAnswer = 'first answer') {
  const requests: ChatRequest[] = [];
  let rounds = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const request = JSON.parse(body) as ChatRequest;
      requests.push(request);
      const last = request.messages.at(-1)!;
      let message: Record<string, unknown>;
      if (last.role === 'user' && last.content === SUMMARY_INSTRUCTION) {
        message = { role: 'assistant', content: 'SUMMARY: read twice' };
      } else if (last.role === 'user' && last.content?.startsWith('feedback:')) {
        message = { role: 'assistant', content: 'second answer' };
      } else if (rounds < toolRounds) {
        rounds += 1;
        message = {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: `call_${rounds}`, type: 'function', function: { name: 'read', arguments: '{}' } },
          ],
        };
      } else {
        message = { role: 'assistant', content: firstAnswer };
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ index: 0, message }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { server, url: `http://127.0.0.1:${port}/v1`, requests };
}

/** Serves every tool and hook row of a run over REST until it ends. */
async function serve(d: Deployment, runId: string, hook: (input: { event: string }) => unknown) {
  return waitFor(
    async () => {
      const inbox = await d.executor.get('/executor_api/v1/inbox');
      for (const item of inbox.body.items) {
        if (item.run_id !== runId || !['tool', 'hook'].includes(item.kind)) continue;
        const claim = await d.executor.post(
          `/executor_api/v1/runs/${runId}/tasks/${item.task_key}/claim`,
        );
        if (claim.status !== 200) continue;
        await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/${item.task_key}/commit`, {
          claim_id: claim.body.claim_id,
          outcome: 'succeeded',
          result:
            item.kind === 'hook' ? { structured_content: hook(item.tool_input) } : 'y'.repeat(300),
        });
      }
      const r = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
      return r.state !== 'running' && r;
    },
    { what: `run ${runId} to end` },
  );
}

describe('lifecycle hooks with the openai provider', () => {
  let d: Deployment;
  let stub: Awaited<ReturnType<typeof startStub>>;
  afterEach(async () => {
    await d?.close();
    stub?.server.close();
  });

  it("sends a stop hook's feedback as a user message and delivers the next answer", async () => {
    stub = await startStub(0);
    d = await deploy(sqlite!, { openai: { baseUrl: stub.url, apiKey: 'k', model: 'm' } });
    const created = await d.member.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'answer',
      lifecycle_hooks: { stop: { tool: 'check', timeout_ms: 5000, max_continuations: 1 } },
      provider: { kind: 'openai' },
    });
    let stops = 0;
    const run = await serve(d, created.body.id, () => {
      stops += 1;
      return stops === 1
        ? { continue: true, feedback: 'feedback: cite sources' }
        : { continue: false };
    });
    expect(run).toMatchObject({
      state: 'completed',
      final_answer: 'second answer',
      continuations: 1,
    });
    expect(stub.requests).toHaveLength(2);
    // The model reads the answer the feedback is about before the feedback.
    expect(stub.requests[1]!.messages).toEqual([
      { role: 'user', content: 'answer' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'feedback: cite sources' },
    ]);
  });

  it("sends the start of an answer longer than the stop hook's preview before its feedback, marked cut", async () => {
    const long = 'z'.repeat(HOOK_OUTPUT_PREVIEW_MAX_BYTES + 100);
    stub = await startStub(0, long);
    d = await deploy(sqlite!, { openai: { baseUrl: stub.url, apiKey: 'k', model: 'm' } });
    const created = await d.member.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'answer',
      lifecycle_hooks: { stop: { tool: 'check', timeout_ms: 5000, max_continuations: 1 } },
      provider: { kind: 'openai' },
    });
    let stops = 0;
    await serve(d, created.body.id, () => {
      stops += 1;
      return stops === 1 ? { continue: true, feedback: 'feedback: shorter' } : { continue: false };
    });
    expect(stub.requests[1]!.messages).toEqual([
      { role: 'user', content: 'answer' },
      { role: 'assistant', content: `${long.slice(0, HOOK_OUTPUT_PREVIEW_MAX_BYTES)}…` },
      { role: 'user', content: 'feedback: shorter' },
    ]);
  });

  it('asks the model for the compaction summary outside the run transaction and reads it next', async () => {
    stub = await startStub(2);
    d = await deploy(sqlite!, { openai: { baseUrl: stub.url, apiKey: 'k', model: 'm' } });
    const created = await d.member.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'read',
      context_limit_bytes: 400,
      provider: { kind: 'openai', tools: [{ name: 'read' }] },
    });
    const run = await serve(d, created.body.id, () => ({ continue: false }));
    expect(run).toMatchObject({ state: 'completed', final_answer: 'first answer', compactions: 1 });
    const summaryRequest = stub.requests.find(
      (r) => r.messages.at(-1)?.content === SUMMARY_INSTRUCTION,
    )!;
    expect(summaryRequest.tools).toBeUndefined();
    const last = stub.requests.at(-1)!;
    expect(last.messages.map((m) => m.role)).toEqual(['user', 'user', 'assistant', 'tool']);
    expect(last.messages[1]!.content).toBe('SUMMARY: read twice');
  });

  it('hands the earlier summary to the model when it compacts again, so no older round is lost', async () => {
    stub = await startStub(3);
    d = await deploy(sqlite!, { openai: { baseUrl: stub.url, apiKey: 'k', model: 'm' } });
    const created = await d.member.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'read',
      context_limit_bytes: 400,
      provider: { kind: 'openai', tools: [{ name: 'read' }] },
    });
    const run = await serve(d, created.body.id, () => ({ continue: false }));
    expect(run).toMatchObject({ state: 'completed', compactions: 2 });
    const summaryRequests = stub.requests.filter(
      (r) => r.messages.at(-1)?.content === SUMMARY_INSTRUCTION,
    );
    expect(summaryRequests).toHaveLength(2);
    expect(summaryRequests[1]!.messages.map((m) => m.content)).toContain('SUMMARY: read twice');
  });
});

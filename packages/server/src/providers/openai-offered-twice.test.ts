import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIProvider } from './openai.js';
import { ProviderError, type RoundRequest } from './types.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A chat-completions stand-in that keeps every request body and answers a final message. */
async function stub(): Promise<{ url: string; bodies: { tools?: unknown[] }[] }> {
  const bodies: { tools?: unknown[] }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      bodies.push(JSON.parse(body) as { tools?: unknown[] });
      const message = { role: 'assistant', content: 'done' };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ index: 0, message, finish_reason: 'stop' }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies };
}

function round(toolNames: string[] | null): RoundRequest {
  const signal = new AbortController().signal;
  return { runId: 'r', index: 0, input: 'hi', toolNames, history: [], fed: [], signal };
}

describe('openai provider: a stored run offering one tool name twice', () => {
  it('fails the round provider_misconfigured, naming the tool, and sends nothing', async () => {
    const endpoint = await stub();
    const provider = new OpenAIProvider({ baseUrl: endpoint.url, model: 'm' });
    // What runs.create refuses today, as a run stored before that check holds it.
    const config = {
      kind: 'openai',
      tools: [
        { name: 'deploy', description: 'to staging' },
        { name: 'deploy', description: 'to production' },
      ],
    };
    const failure = await provider.nextRound(config, round(null)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProviderError);
    expect((failure as ProviderError).code).toBe('provider_misconfigured');
    expect((failure as ProviderError).detail).toContain('"deploy" twice');
    expect(endpoint.bodies).toHaveLength(0);
  });

  it('offers a name tool_names repeats once, and each distinct tool as before', async () => {
    const endpoint = await stub();
    const provider = new OpenAIProvider({ baseUrl: endpoint.url, model: 'm' });
    await provider.nextRound({ kind: 'openai' }, round(['read', 'read', 'write']));
    const offered = endpoint.bodies[0]?.tools as { function: { name: string } }[];
    expect(offered.map((tool) => tool.function.name)).toEqual(['read', 'write']);
  });
});

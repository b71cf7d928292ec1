import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHttpGateway } from './http-gateway-fixture.js';

/** The JSON-RPC messages of a Streamable HTTP answer's event stream, read as they come. */
async function* streamedMessages(answer: Response): AsyncGenerator<Record<string, unknown>> {
  const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      for (let end = buffered.indexOf('\n\n'); end !== -1; end = buffered.indexOf('\n\n')) {
        const data = buffered
          .slice(0, end)
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trim())
          .join('');
        buffered = buffered.slice(end + 2);
        if (data !== '') yield JSON.parse(data) as Record<string, unknown>;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/*
 * A member's HTTP client that opens no GET stream (MCP makes it optional)
 * still reads every message about its call on the call's own POST stream:
 * the inline question was sent on the session's GET stream only, so such a
 * client was never asked and its call waited for the inbox.
 */
describe('MCP gateway over HTTP: the inline question rides on the call', () => {
  const g = useHttpGateway({
    gateway: { memberPolicy: { approval_mode: 'ask', approval_rules: [] }, pollMs: 50 },
  });

  const post = (message: object, sessionId?: string) =>
    fetch(g.front.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${g.kernel.workspace.tokens.member}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } : {}),
      },
      body: JSON.stringify(message),
    });

  it('asks on the POST stream of the parked call, and the approval runs it', async () => {
    const opened = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: { elicitation: { form: {} } },
        clientInfo: { name: 'no-get-stream', version: '1' },
      },
    });
    const sessionId = opened.headers.get('mcp-session-id') ?? '';
    await opened.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).text();
    const call = await post(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'fs__write_file', arguments: { path: 'src/a.txt', content: 'asked' } },
      },
      sessionId,
    );
    const messages = streamedMessages(call);
    const question = (await messages.next()).value;
    expect(question).toMatchObject({ method: 'elicitation/create' });
    expect(existsSync(join(g.dir, 'src/a.txt'))).toBe(false);
    const approve = {
      jsonrpc: '2.0',
      id: question?.id,
      result: { action: 'accept', content: { decision: 'approve' } },
    };
    expect((await post(approve, sessionId)).status).toBe(202);
    // Notifications may come first (the question withdrawn once the call is decided).
    let answer: Record<string, unknown> | undefined;
    for await (const message of messages) {
      if (message.id === 2) {
        answer = message;
        break;
      }
    }
    expect(answer).toMatchObject({ result: { content: [{ type: 'text' }] } });
    expect(readFileSync(join(g.dir, 'src/a.txt'), 'utf8')).toBe('asked');
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, type TestContext } from 'vitest';
import { type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';
import { refuseUnoffered } from './offered-tools.js';

/** A chat-completions endpoint on loopback answering its nth request with `messages[n - 1]`, then `done`. */
async function modelAnswering(messages: Record<string, unknown>[]) {
  let asked = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const message = messages[asked] ?? finalMessage('done');
      asked += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ index: 0, message }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** An assistant message with the final answer `text`. */
function finalMessage(text: string): Record<string, unknown> {
  return { role: 'assistant', content: text };
}

/** An assistant message calling each named tool once, with an input of its own. */
function callsMessage(...names: string[]): Record<string, unknown> {
  return {
    role: 'assistant',
    content: null,
    tool_calls: names.map((name, i) => ({
      id: `call_${i}`,
      type: 'function',
      function: { name, arguments: JSON.stringify({ command: `${name} -rf build` }) },
    })),
  };
}

interface Row {
  key: string;
  origin: string;
  tool_name: string;
  state: string;
  error?: { code: string; detail: string } | null;
}

describe('refuseUnoffered', () => {
  const granted = {
    outcome: 'granted' as const,
    granted_by: 'mode' as const,
    error: null,
    matched: [],
    tool_name: 'rm',
  };
  const provider = JSON.stringify({ kind: 'openai', tools: [{ name: 'ls' }] });

  it("holds only the kernel's own loop to the offer: a hooked or gateway model is offered its tools elsewhere", () => {
    const call = { origin: 'model' as const, toolName: 'rm' };
    expect(refuseUnoffered({ id: 'r1', loop: 'kernel', provider }, call, granted)).toMatchObject({
      outcome: 'denied',
      error: { code: 'approval_denied' },
    });
    expect(refuseUnoffered({ id: 'r2', loop: 'hooked', provider }, call, granted)).toBe(granted);
    expect(refuseUnoffered({ id: 'r3', loop: 'gateway', provider }, call, granted)).toBe(granted);
  });

  it('leaves author and kernel rows, and a runner-qualified name of an offered tool, as decided', () => {
    const run = { id: 'r4', loop: 'kernel' as const, provider };
    for (const origin of ['author', 'kernel'] as const) {
      expect(refuseUnoffered(run, { origin, toolName: 'rm' }, granted)).toBe(granted);
    }
    const ls = { ...granted, tool_name: 'ls' };
    expect(refuseUnoffered(run, { origin: 'model', toolName: 'ls__0123456789ab' }, ls)).toBe(ls);
  });
});

/*
 * A model that calls a tool its run's provider never offered it (a hallucination, or a
 * prompt injection) is refused at the stage as a call outside tool_names is, whatever the
 * mode; a run whose provider offers no list, and a person's own rows, are unchanged.
 */
for (const backend of await backends()) {
  // Each case has a kernel and a model of its own, and waits on the run loop: side by side.
  describe.skipIf(backend.skip !== null)(
    `a call to a tool not offered (${backend.name})`,
    {
      concurrent: true,
    },
    () => {
      /** A kernel asking a model that answers `rounds`, and its run of `body`; closed with the test. */
      async function runOf(
        onTestFinished: TestContext['onTestFinished'],
        body: Record<string, unknown>,
        rounds: Record<string, unknown>[],
      ): Promise<{ d: Deployment; runId: string }> {
        const model = await modelAnswering(rounds);
        onTestFinished(() => model.close());
        const d = await deploy(backend, {
          openai: { baseUrl: model.url, apiKey: 'sk-test', model: 'm' },
        });
        onTestFinished(() => d.close());
        const created = await d.agent.post(`${d.ws}/runs`, { input: 'tidy up', ...body });
        expect(created.status).toBe(201);
        return { d, runId: created.body.id as string };
      }

      async function settledRows(d: Deployment, runId: string, count: number): Promise<Row[]> {
        return waitFor(async () => {
          const rows = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as Row[];
          return rows.length === count && rows.every((row) => row.state !== 'ready') ? rows : null;
        });
      }

      it('refuses the call in bypass mode, grants the offered one, and lets a person append it', async ({
        onTestFinished,
      }) => {
        const { d, runId } = await runOf(
          onTestFinished,
          { approval_mode: 'bypass', provider: { kind: 'openai', tools: [{ name: 'ls' }] } },
          [callsMessage('ls', 'rm')],
        );
        const [ls, rm] = await settledRows(d, runId, 2);
        expect(ls).toMatchObject({ tool_name: 'ls', state: 'runnable' });
        expect(rm).toMatchObject({ tool_name: 'rm', state: 'failed' });
        expect(rm?.error?.code).toBe('approval_denied');
        expect(rm?.error?.detail).toContain('rm is not among the tools');
        // A person's own row is theirs to ask for: the model's offer does not bind it.
        const appended = await d.member.post(`${d.ws}/runs/${runId}/tasks`, {
          tool_name: 'rm',
          tool_input: { command: 'rm -rf build' },
        });
        expect(appended.status).toBe(201);
        expect(appended.body).toMatchObject({ origin: 'author', state: 'runnable' });
      });

      it('refuses it in ask mode rather than parking it, and the model reads why', async ({
        onTestFinished,
      }) => {
        const { d, runId } = await runOf(
          onTestFinished,
          {
            approval_mode: 'ask',
            approval_rules: [{ tool: '*', verdict: 'allow' }],
            provider: { kind: 'openai', tools: [{ name: 'ls' }] },
          },
          [callsMessage('rm'), finalMessage('gave up')],
        );
        const run = await waitFor(async () => {
          const read = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
          return read.state !== 'running' && read;
        });
        expect(run).toMatchObject({ state: 'completed', final_answer: 'gave up' });
        const [rm] = await settledRows(d, runId, 1);
        expect(rm).toMatchObject({ state: 'failed', error: { code: 'approval_denied' } });
        const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
          type: string;
          data: { fed?: { content: string }[] };
        }[];
        const fed = events.filter((e) => e.type === 'run.model_read').flatMap((e) => e.data.fed);
        expect(fed.map((f) => f?.content)).toContainEqual(
          expect.stringContaining('rm is not among the tools'),
        );
      });

      it('takes a name an alias resolves to an offered tool as offered', async ({
        onTestFinished,
      }) => {
        const { d, runId } = await runOf(
          onTestFinished,
          {
            approval_mode: 'bypass',
            tool_aliases: { sh: 'bash' },
            provider: { kind: 'openai', tools: [{ name: 'bash' }] },
          },
          [callsMessage('sh', 'bash')],
        );
        const rows = await settledRows(d, runId, 2);
        expect(rows.map((row) => row.state)).toEqual(['runnable', 'runnable']);
      });

      it("asks a person only when the model was offered the kernel's ask tool", async ({
        onTestFinished,
      }) => {
        const question = {
          role: 'assistant',
          content: null,
          tool_calls: ['q_0', 'q_1'].map((id) => ({
            id,
            type: 'function',
            function: { name: 'ask', arguments: JSON.stringify({ prompt: 'Which branch?' }) },
          })),
        };
        const unoffered = await runOf(
          onTestFinished,
          { approval_mode: 'bypass', provider: { kind: 'openai', tools: [{ name: 'ls' }] } },
          [question],
        );
        const refused = await settledRows(unoffered.d, unoffered.runId, 2);
        expect(refused.map((row) => [row.state, row.error?.code])).toEqual([
          ['failed', 'approval_denied'],
          ['failed', 'approval_denied'],
        ]);
        const offered = await runOf(
          onTestFinished,
          { approval_mode: 'bypass', provider: { kind: 'openai', tools: [{ name: 'ask' }] } },
          [question],
        );
        const asked = await settledRows(offered.d, offered.runId, 2);
        expect(asked.map((row) => row.state)).toEqual(['awaiting_input', 'awaiting_input']);
      });

      it('leaves a run whose provider offers no list of tools as it was', async ({
        onTestFinished,
      }) => {
        const { d, runId } = await runOf(
          onTestFinished,
          { approval_mode: 'bypass', provider: { kind: 'openai' } },
          [callsMessage('rm')],
        );
        const [rm] = await settledRows(d, runId, 1);
        expect(rm).toMatchObject({ tool_name: 'rm', state: 'runnable' });
      });
    },
  );
}

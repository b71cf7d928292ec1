import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { claudeCode, runHook } from '@airlock/hooks';
import { type Gateway, KernelApi, startGateway } from '@airlock/mcp';
import { createClient } from '@airlock/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { context, propagation, ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesystemServer, workFolder } from '../mcp/servers.js';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from '../support/otlp-receiver.js';

/** A client-side span: its ids and the `traceparent` that names it. */
function clientSpan() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/*
 * Each client of the kernel hands its caller's trace context on: the SDK (an
 * explicit traceparent, or the application's active OpenTelemetry context),
 * the hook client (TRACEPARENT in the hook's environment) and the MCP gateway
 * (`_meta.traceparent` of a tools/call). The kernel's spans, exported to an
 * in-process OTLP receiver, continue each of them.
 */
describe('clients send the W3C traceparent the kernel continues', () => {
  let kernel: TestKernel;
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    kernel = await startTestKernel({ otlpEndpoint: receiver.url });
    await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
      approval_mode: 'rules',
      approval_rules: [
        { tool: 'fs__read_*|fs__list_*', verdict: 'allow' },
        { tool: 'Bash', path: 'command', match: 'ls*', verdict: 'allow' },
      ],
    });
  });
  afterAll(async () => {
    await kernel?.close();
    await receiver?.close();
  });

  /** The kernel's span of an operation in a trace, once exported. */
  const spanOf = (traceId: string, name: string): Promise<ReceivedSpan> =>
    eventually(() => receiver.spans.find((s) => s.traceId === traceId && s.name === name), {
      what: `span ${name} in trace ${traceId}`,
    });

  it('the SDK sends the traceparent it is given', async () => {
    const caller = clientSpan();
    const ws = createClient({
      url: kernel.url,
      token: kernel.workspace.tokens.member,
      traceparent: () => caller.traceparent,
    }).workspace(kernel.workspace.id);
    await ws.decisions.list();
    const span = await spanOf(caller.traceId, 'decisions.list');
    expect(span.parentSpanId).toBe(caller.spanId);
  });

  it("the SDK propagates the application's active OpenTelemetry context", async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    try {
      const caller = clientSpan();
      const active = trace.setSpanContext(ROOT_CONTEXT, {
        traceId: caller.traceId,
        spanId: caller.spanId,
        traceFlags: TraceFlags.SAMPLED,
      });
      const ws = createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
        kernel.workspace.id,
      );
      await context.with(active, () => ws.decisions.list());
      const span = await spanOf(caller.traceId, 'decisions.list');
      expect(span.parentSpanId).toBe(caller.spanId);
    } finally {
      propagation.disable();
    }
  });

  it('the hook client sends the TRACEPARENT of its environment', async () => {
    const caller = clientSpan();
    const answer = await runHook({
      protocol: claudeCode,
      input: JSON.stringify({
        session_id: 'traced-session',
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'ls -la' },
        tool_use_id: 'toolu_1',
      }),
      env: {
        AIRLOCK_URL: kernel.url,
        AIRLOCK_TOKEN: kernel.workspace.tokens.agent,
        TRACEPARENT: caller.traceparent,
      },
    });
    expect(JSON.parse(answer.stdout).hookSpecificOutput.permissionDecision).toBe('allow');
    const request = await spanOf(caller.traceId, 'hooks.event');
    expect(request.parentSpanId).toBe(caller.spanId);
    const stage = await spanOf(caller.traceId, 'airlock.stage');
    expect(stage).toMatchObject({ parentSpanId: request.spanId });
    expect(stage.attributes).toMatchObject({
      'airlock.outcome': 'granted',
      'airlock.tool_name': 'Bash',
    });
  });

  describe('the MCP gateway', () => {
    let gateway: Gateway;
    let client: Client;
    let dir: string;
    afterAll(async () => {
      await client?.close();
      await gateway?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("sends a tools/call's _meta.traceparent with the call it plants", async () => {
      dir = workFolder();
      gateway = await startGateway({
        url: kernel.url,
        workspaceId: kernel.workspace.id,
        executorToken: kernel.workspace.tokens.executor,
        servers: [filesystemServer(dir)],
        pollMs: 50,
      });
      const front = await gateway.listenHttp();
      client = new Client({ name: 'traced-client', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(front.url), {
          requestInit: { headers: { authorization: `Bearer ${kernel.workspace.tokens.agent}` } },
        }),
      );
      const caller = clientSpan();
      const result = await client.callTool({
        name: 'fs__list_directory',
        arguments: { path: 'src' },
        _meta: { traceparent: caller.traceparent },
      });
      expect(result.isError).toBeFalsy();
      const request = await spanOf(caller.traceId, 'runs.calls');
      expect(request.parentSpanId).toBe(caller.spanId);
      // The submit claims the call for the gateway's own executor, which commits it: both join the client's trace.
      for (const name of ['airlock.stage', 'airlock.claim', 'airlock.commit']) {
        expect((await spanOf(caller.traceId, name)).parentSpanId, name).toBe(request.spanId);
      }
    });
  });
});

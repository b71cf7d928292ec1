import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { capturedLogger } from '../testing/log-lines.js';
import type { CallAddress } from './call-tracing.js';
import { createCallTracing } from './otel-call-tracing.js';

/** A collector on loopback keeping each exported span's name, trace and run. */
async function startCollector() {
  const spans: { name: string; traceId: string; runId: unknown }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const resource of body.resourceSpans ?? [])
        for (const scope of resource.scopeSpans ?? [])
          for (const span of scope.spans ?? []) {
            const run = (span.attributes ?? []).find(
              (a: { key: string }) => a.key === 'airlock.run_id',
            );
            spans.push({ name: span.name, traceId: span.traceId, runId: run?.value.stringValue });
          }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((settle) => server.listen(0, '127.0.0.1', settle));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    spans,
    close: () => new Promise<void>((settle) => server.close(() => settle())),
  };
}

/** Runs `work` inside a request's trace, as the HTTP server's span makes one. */
function inTrace(traceId: string, work: () => void): void {
  const request = trace.wrapSpanContext({
    traceId,
    spanId: traceId.slice(0, 16),
    traceFlags: TraceFlags.SAMPLED,
  });
  context.with(trace.setSpan(ROOT_CONTEXT, request), work);
}

const call = (runId: string): CallAddress => ({ workspaceId: 'ws_1', runId, key: 't1' });

describe('the trace a call waiting for a person hangs from', () => {
  it('is kept however many calls are granted at once meanwhile (a hooked agent’s)', async () => {
    const collector = await startCollector();
    const tracing = createCallTracing({
      tracesUrl: collector.url,
      serviceName: 'airlock',
      logger: capturedLogger().logger,
      keptCalls: 3,
    });
    try {
      const parkedTrace = 'a'.repeat(32);
      inTrace(parkedTrace, () =>
        tracing.stageDecided(call('run_parked'), {
          startedAt: Date.now(),
          outcome: 'parked',
          layer: 'approval_rules',
          toolName: 'Bash',
        }),
      );
      // More calls granted at once than the kept contexts hold: none of them is claimed here.
      for (let i = 0; i < 5; i += 1) {
        inTrace(`${i}`.repeat(32), () =>
          tracing.stageDecided(call(`run_granted_${i}`), {
            startedAt: Date.now(),
            outcome: 'granted',
            layer: 'approval_rules',
            toolName: 'Read',
          }),
        );
      }
      // The person decides hours later, from a request of their own.
      inTrace('b'.repeat(32), () =>
        tracing.personDecided(call('run_parked'), {
          parkedAt: Date.now() - 1000,
          startedAt: Date.now(),
          verb: 'approve',
          parked: true,
        }),
      );
    } finally {
      await tracing.shutdown();
      await collector.close();
    }
    const decision = collector.spans.find(
      (span) => span.name === 'airlock.decision' && span.runId === 'run_parked',
    );
    expect(decision?.traceId).toBe('a'.repeat(32));
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { capturedLogger } from '../testing/log-lines.js';
import { createCallTracing } from './otel-call-tracing.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((settle) => (server ? server.close(() => settle()) : settle()));
  server = undefined;
});

/** A collector that takes the request and never answers, or refuses it with 400. */
async function collector(answer: 'never' | 'refuse'): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    if (answer === 'refuse') req.on('end', () => res.writeHead(400).end());
  });
  await new Promise<void>((settle) => server!.listen(0, '127.0.0.1', settle));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
}

describe('the kernel’s stop with spans still to export', () => {
  for (const answer of ['refuse', 'never'] as const) {
    it(`ends without failing when the collector does not take them (${answer})`, async () => {
      const { logger, lines } = capturedLogger();
      const tracing = createCallTracing({
        tracesUrl: await collector(answer),
        serviceName: 'airlock-test',
        logger,
      });
      tracing.stageDecided(
        { workspaceId: 'ws_1', runId: 'run_1', key: 't1' },
        { startedAt: Date.now(), outcome: 'granted', layer: 'approval_rules', toolName: 'bash' },
      );
      await expect(tracing.shutdown()).resolves.toBeUndefined();
      // Either way the lost spans are said, at warn: refused by the exporter, unsent by the stop.
      const said = lines.filter((line) => line.level === 40).map((line) => line.msg);
      expect(said).toContain(
        answer === 'refuse'
          ? 'OTLP trace export failed'
          : 'OTLP trace export: the last spans were not sent before the stop',
      );
    }, 30_000);
  }
});

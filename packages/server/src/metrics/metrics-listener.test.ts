import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startMetricsListener } from './endpoint.js';
import { createMetrics } from './registry.js';

/** A pino logger that keeps what it logs, to read back. */
function keptLogger() {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('the unauthenticated metrics address', () => {
  const holder = createServer();
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  it("names --metrics-listen when its port is taken, not the kernel's --port", async () => {
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    const { logger } = keptLogger();
    await expect(
      startMetricsListener({ host: '127.0.0.1', port, metrics: createMetrics(), logger }),
    ).rejects.toThrow(`--metrics-listen 127.0.0.1:${port}: another process listens there`);
  });

  it('warns when it listens beyond loopback, and not on loopback', async () => {
    const quiet = keptLogger();
    const local = await startMetricsListener({
      host: '127.0.0.1',
      port: 0,
      metrics: createMetrics(),
      logger: quiet.logger,
    });
    await local.close();
    expect(quiet.lines.filter((line) => line.level === 40)).toEqual([]);
    const loud = keptLogger();
    const open = await startMetricsListener({
      host: '0.0.0.0',
      port: 0,
      metrics: createMetrics(),
      logger: loud.logger,
    });
    await open.close();
    expect(loud.lines.filter((line) => line.level === 40).map((line) => line.msg)).toEqual([
      expect.stringContaining('without a token'),
    ]);
  });
});

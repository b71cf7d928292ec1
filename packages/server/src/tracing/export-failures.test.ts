import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startAirlock } from '../airlock.js';
import { waitFor } from '../testing/harness.js';
import { capturedLogger } from '../testing/log-lines.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';

/** A collector on loopback that refuses every export (400) while `refusing` is set. */
async function startCollector() {
  const state = { refusing: true, taken: 0 };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (state.refusing) {
        res.writeHead(400).end();
        return;
      }
      state.taken += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((settle) => server.listen(0, '127.0.0.1', settle));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    state,
    close: () => new Promise<void>((settle) => server.close(() => settle())),
  };
}

describe('failed OTLP exports', () => {
  it('are logged once a streak, at warn with the endpoint, and so is the streak’s end', async () => {
    const collector = await startCollector();
    const dataDir = mkdtempSync(join(tmpdir(), 'airlock-otlp-'));
    const { logger, lines } = capturedLogger();
    const airlock = await startAirlock({
      dataDir,
      // A collector behind basic authentication: its password stays out of the log.
      otlpEndpoint: collector.url.replace('http://', 'http://tenant:s3cret@'),
      logger,
    });
    try {
      const { workspaceId, tokens } = await workspaceWithTokens(airlock.store, 'otlp');
      const list = async () => {
        const answer = await fetch(`${airlock.url}/api/v1/workspaces/${workspaceId}/runs?limit=1`, {
          headers: { authorization: `Bearer ${tokens.member}` },
        });
        expect(answer.status).toBe(200);
      };
      const said = (msg: string) => lines.filter((line) => line.msg === msg);
      await list();
      const failed = await waitFor(async () => said('OTLP trace export failed')[0]);
      expect(failed).toMatchObject({
        level: 40,
        endpoint: `${collector.url.replace('http://', 'http://***@')}/v1/traces`,
      });
      // Three more batches refused (the processor sends one each half second): still one line.
      for (let i = 0; i < 3; i += 1) {
        await list();
        await new Promise((settle) => setTimeout(settle, 600));
      }
      expect(said('OTLP trace export failed')).toHaveLength(1);
      expect(said('OTLP trace export still failing')).toEqual([]);
      collector.state.refusing = false;
      await list();
      await waitFor(async () => said('OTLP trace export recovered')[0]);
      expect(collector.state.taken).toBeGreaterThan(0);
      expect(JSON.stringify(lines)).not.toContain('s3cret');
    } finally {
      await airlock.close();
      await collector.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

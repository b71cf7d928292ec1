import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import SqliteDatabase from 'better-sqlite3';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startAirlock } from '../airlock.js';
import { LOG_REDACTION, REDACTED } from '../logging/redact.js';
import { SQLITE_FILE_NAME } from '../store/sqlite/sqlite-backend.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-internal-error-log-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * A kernel on a SQLite store in `name`, logging as the kernel's command line makes it log (every
 * level from info, the same redaction) into `lines`, with the store's file open beside it.
 */
async function loggedKernel(name: string) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const dataDir = join(root, name);
  const airlock = await startAirlock({
    dataDir,
    logger: pino({ level: 'info', redact: LOG_REDACTION }, sink),
  });
  const db = new SqliteDatabase(join(dataDir, SQLITE_FILE_NAME));
  return { lines, airlock, db };
}

describe('the error line of a request that fails inside the kernel', () => {
  it('names the path with a token in it redacted (a credential revoked by its token)', async () => {
    const { lines, airlock, db } = await loggedKernel('data');
    try {
      const { workspaceId, tokens } = await workspaceWithTokens(airlock.store, 'logs');
      // A revocation the database refuses is a failure the kernel has no code for: a 500.
      db.exec(`CREATE TRIGGER refuse_revoke BEFORE UPDATE OF revoked_at ON credentials
        BEGIN SELECT RAISE(ABORT, 'the test refuses revocations'); END`);
      const answer = await fetch(
        `${airlock.url}/api/v1/workspaces/${workspaceId}/credentials/${tokens.agent}/revoke`,
        { method: 'POST', headers: { authorization: `Bearer ${tokens.member}` } },
      );
      expect(answer.status).toBe(500);
      expect(await answer.json()).toEqual({
        error: { code: 'internal', detail: 'internal error' },
      });
      const failed = lines
        .map((line) => JSON.parse(line) as { msg: string; level: number; path?: string })
        .find((line) => line.msg === 'request failed');
      expect(failed).toMatchObject({
        level: 50,
        path: `/api/v1/workspaces/${workspaceId}/credentials/${REDACTED}/revoke`,
      });
      expect(lines.filter((line) => line.includes(tokens.agent))).toEqual([]);
    } finally {
      db.close();
      await airlock.close();
    }
  });

  it('is written for a tRPC call as for REST, naming the operation and never the input', async () => {
    const { lines, airlock, db } = await loggedKernel('data-trpc');
    try {
      const { workspaceId, tokens } = await workspaceWithTokens(airlock.store, 'logs');
      db.exec(`CREATE TRIGGER refuse_revoke BEFORE UPDATE OF revoked_at ON credentials
        BEGIN SELECT RAISE(ABORT, 'the test refuses revocations'); END`);
      const answer = await fetch(`${airlock.url}/trpc/credentials.revoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.member}`, 'content-type': 'application/json' },
        body: JSON.stringify({ workspace_id: workspaceId, credential_id: tokens.agent }),
      });
      expect(answer.status).toBe(500);
      const body = (await answer.json()) as { error: { data: { error: unknown } } };
      expect(body.error.data.error).toEqual({ code: 'internal', detail: 'internal error' });
      const failed = lines
        .map((line) => JSON.parse(line) as { msg: string; level: number; operation?: string })
        .find((line) => line.msg === 'request failed');
      expect(failed).toMatchObject({ level: 50, operation: 'credentials.revoke' });
      expect(JSON.stringify(failed)).toContain('the test refuses revocations');
      expect(lines.filter((line) => line.includes(tokens.agent))).toEqual([]);
    } finally {
      db.close();
      await airlock.close();
    }
  });

  it('is written for a WebSocket upgrade that fails inside the kernel, with no token in it', async () => {
    const { lines, airlock, db } = await loggedKernel('data-socket');
    try {
      const { workspaceId, tokens } = await workspaceWithTokens(airlock.store, 'logs');
      // The feed's resume check reads the retention policies: a table gone is a failure with no code.
      db.exec('ALTER TABLE retention_policies RENAME TO retention_policies_gone');
      const feed = `/api/v1/workspaces/${workspaceId}/feed`;
      const status = await new Promise<number>((resolve, reject) => {
        const socket = new WebSocket(
          `${airlock.url.replace(/^http/, 'ws')}${feed}?access_token=${tokens.member}`,
        );
        socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        socket.on('open', () => reject(new Error('the upgrade was served')));
        socket.on('error', reject);
      });
      expect(status).toBe(500);
      const failed = lines
        .map((line) => JSON.parse(line) as { msg: string; level: number; path?: string })
        .find((line) => line.msg === 'request failed');
      expect(failed).toMatchObject({ level: 50, path: feed });
      expect(JSON.stringify(failed)).toContain('retention_policies');
      expect(lines.filter((line) => line.includes(tokens.member))).toEqual([]);
    } finally {
      db.close();
      await airlock.close();
    }
  });
});

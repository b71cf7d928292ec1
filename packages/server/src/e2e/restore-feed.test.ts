import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { client, waitFor } from '../testing/harness.js';
import { type KernelProcess, startKernelProcess } from '../testing/kernel-process.js';
import { runLocalCli } from '../testing/operator-cli.js';
import { connect, type Message } from '../testing/sockets.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-restore-feed-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** How many credentials this file has made: each gets a label of its own (labels are unique). */
let made = 0;

/** Adds `count` member credentials: one `credential_created` event each. */
async function addCredentials(kernel: KernelProcess, token: string, count: number): Promise<void> {
  const member = client(kernel.url, token);
  for (let i = 0; i < count; i += 1) {
    made += 1;
    const answer = await member.post(`/api/v1/workspaces/${kernel.workspaceId}/credentials`, {
      kind: 'member',
      agent_application_id: null,
      label: `m${made}`,
    });
    expect(answer.status).toBe(201);
  }
}

/** The workspace's feed from `after`: its messages once `done` says they are all there. */
async function feed(
  kernel: KernelProcess,
  token: string,
  after: number | 'latest',
  done: (messages: Message[]) => boolean,
): Promise<Message[]> {
  const socket = await connect(
    `${kernel.url}/api/v1/workspaces/${kernel.workspaceId}/feed?after=${after}`,
    token,
  );
  try {
    return await waitFor(async () => (done(socket.messages) ? [...socket.messages] : null));
  } finally {
    socket.close();
  }
}

const head = async (kernel: KernelProcess, token: string) =>
  Number((await feed(kernel, token, 'latest', (m) => m.length > 0))[0]!.after);

describe('a feed client that read past a backup, after the restore', { timeout: 180_000 }, () => {
  it('is told to resynchronise, and one at the backup reads every new event', async () => {
    const dataDir = join(root, 'data');
    const backup = join(root, 'backup.sqlite');
    let kernel = await startKernelProcess({ dataDir });
    const token = kernel.tokens.member;
    let atBackup: number;
    let readTo: number;
    try {
      await addCredentials(kernel, token, 2);
      atBackup = await head(kernel, token);
      expect((await runLocalCli(['backup', backup, '--data-dir', dataDir])).code).toBe(0);
      // Written after the backup: a client reads them, then the restore undoes them.
      await addCredentials(kernel, token, 5);
      readTo = await head(kernel, token);
      expect(readTo).toBe(atBackup + 5);
    } finally {
      await kernel.stop();
    }

    const restored = await runLocalCli(['restore', backup, '--data-dir', dataDir]);
    expect(restored.code).toBe(0);
    expect(restored.stderr).toContain(
      `workspace ${kernel.workspaceId}: the replaced store's events ${atBackup + 1} to ${readTo} are undone; ` +
        `new events are numbered from ${readTo + 2}`,
    );

    kernel = await startKernelProcess({ dataDir });
    try {
      // Before any new event the head is one past the undone ones, and a reader resumes from it.
      expect(await head(kernel, token)).toBe(readTo + 1);
      const idle = await feed(kernel, token, readTo + 1, (m) => m.length > 0);
      expect(idle[0]).toEqual({ type: 'ready', after: readTo + 1 });

      // The restored kernel writes more than the client had read past the backup.
      await addCredentials(kernel, token, 7);
      const newHead = await head(kernel, token);
      expect(newHead).toBe(readTo + 1 + 7);

      // The client that read the undone events: told to resynchronise, not handed the new ones as if it had them.
      const behind = await feed(kernel, token, readTo, (m) => m.length > 0);
      expect(behind[0]).toMatchObject({ type: 'resync', code: 'feed_position_pruned' });
      expect(behind[0]!.detail).toContain(
        `events ${atBackup + 1} to ${readTo} were written by the store this one replaced`,
      );
      const inside = await feed(kernel, token, atBackup + 1, (m) => m.length > 0);
      expect(inside[0]).toMatchObject({ type: 'resync', code: 'feed_position_pruned' });

      // One that stopped at the backup reads every event of the restored store after it.
      const atIt = await feed(
        kernel,
        token,
        atBackup,
        (m) => m.filter((message) => message.event).length >= 7,
      );
      expect(atIt[0]).toEqual({ type: 'ready', after: atBackup });
      const seqs = atIt.filter((message) => message.event).map((message) => message.event.seq);
      expect(seqs).toEqual(Array.from({ length: 7 }, (_, i) => readTo + 2 + i));

      // A fresh reader given the latest position resumes from it as ever.
      const latest = await feed(kernel, token, newHead, (m) => m.length > 0);
      expect(latest[0]).toEqual({ type: 'ready', after: newHead });
    } finally {
      await kernel.stop();
    }
  });
});

import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backends } from '../../testing/stores.js';
import { createWorkspace } from '../accounts.js';
import { SQLITE_FILE_NAME } from './sqlite-backend.js';

const sqlite = (await backends()).find((b) => b.name === 'sqlite');

describe('the SQLite WAL under writes that never pause', () => {
  it('starts again from its beginning instead of growing with everything written', {
    timeout: 120_000,
  }, async () => {
    if (!sqlite) throw new Error('no SQLite backend');
    const { store, location, dispose } = await sqlite.open();
    try {
      const ws = await createWorkspace(store, 'w');
      const wal = join(location.dataDir ?? '', `${SQLITE_FILE_NAME}-wal`);
      // Each unit appends an event of about 8 KB: two or three WAL frames of its own.
      const payload = 'x'.repeat(8000);
      const unit = () =>
        store.transaction(async (tx) => {
          tx.emit({
            workspace_id: ws.id,
            run_id: 'r',
            type: 'run.attention_cleared',
            data: { payload },
          });
        });
      // Two writers back to back: a unit of work is always waiting, the connection never idles.
      // They stop at an amount written, not after a time: a busy machine writes the same, slower.
      const target = 24 * 1024 * 1024;
      let written = 0;
      let largest = 0;
      const writer = async () => {
        while (written < target) {
          await unit();
          written += payload.length;
          if (written % (400 * payload.length) === 0)
            largest = Math.max(largest, statSync(wal).size);
        }
      };
      await Promise.all([writer(), writer()]);
      largest = Math.max(largest, statSync(wal).size);
      // The WAL holds what a few checkpoint intervals (250 ms) bring, whatever the total: about a
      // fifth of the payloads written here. Before the kernel's thread finished checkpoints it
      // grew with everything written, to about 2.5 times the payloads (each event takes more
      // than its payload in frames). The bound leaves room for a worker slowed by a busy machine.
      expect(largest).toBeLessThan(written);
    } finally {
      await dispose();
    }
  });
});

import { createClient, type DeliveryView } from '@airlock/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';

describe("a workspace's notification outbox a page at a time through the SDK", () => {
  let kernel: TestKernel;
  const made: string[] = [];
  beforeAll(async () => {
    kernel = await startTestKernel();
    // Seven dead letters over two milliseconds, tied in each (the worker sends none of them).
    const at = Date.now();
    const rows = Array.from({ length: 7 }, (_, n) => ({
      id: `ntf_sdk${String(n).padStart(2, '0')}`,
      workspace_id: kernel.workspace.id,
      run_id: n < 3 ? 'run_one' : 'run_two',
      task_key: 't1',
      event_type: 'task.parked',
      channel: 'ops',
      channel_kind: 'webhook' as const,
      payload: '{}',
      state: 'dead' as const,
      attempts: 1,
      next_attempt_at: at,
      lease_owner: null,
      lease_until: null,
      last_error: 'the receiver answered 500',
      external_ref: null,
      created_at: n < 4 ? at : at + 1,
      updated_at: at,
      delivered_at: null,
    }));
    await kernel.airlock.store.db.insertInto('notification_deliveries').values(rows).execute();
    made.push(...rows.map((row) => row.id));
  });
  afterAll(async () => {
    await kernel?.close();
  });

  const notifications = () =>
    createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    ).notifications;

  it('hands the next page cursor, and reads every delivery with all()', async () => {
    const outbox = notifications();
    const whole = (await outbox.page({ limit: 1000 })).deliveries.map((row) => row.id);
    expect([...whole].sort()).toEqual([...made].sort());
    const first = await outbox.page({ limit: 4 });
    expect(first.deliveries.map((row) => row.id)).toEqual(whole.slice(0, 4));
    const second = await outbox.page({ limit: 3, cursor: first.next_cursor! });
    expect(second.deliveries.map((row) => row.id)).toEqual(whole.slice(4));
    expect(second.next_cursor).toBeNull();
    const walked: DeliveryView[] = [];
    for await (const row of outbox.all({ state: 'dead', pageSize: 2 })) walked.push(row);
    expect(walked.map((row) => row.id)).toEqual(whole);
    const ofRun: string[] = [];
    for await (const row of outbox.all({ runId: 'run_one', pageSize: 1 })) ofRun.push(row.id);
    expect([...ofRun].sort()).toEqual(made.slice(0, 3));
  });

  it('refuses a cursor the list did not make as a ValidationError', async () => {
    await expect(notifications().page({ cursor: 'bm90LWEtY3Vyc29y' })).rejects.toMatchObject({
      name: 'ValidationError',
      code: 'invalid_input',
    });
  });
});

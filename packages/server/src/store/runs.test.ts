import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import { applicationOfRun, applicationsOfRuns } from './runs.js';

const available = (await backends()).filter((backend) => backend.skip === null);

describe.each(available)('applicationOfRun on $name', (backend) => {
  let d: Deployment;
  afterEach(async () => {
    await d?.close();
  });

  it("answers a run's application, none for another workspace, and from memory once read", async () => {
    d = await deploy(backend);
    const run = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'x',
      provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'a' }] }, { final: 'f' }] },
    });
    expect(run.status).toBe(201);
    const store = d.airlock.store;
    expect(await applicationOfRun(store, d.workspaceId, run.body.id)).toBe(d.appId);
    expect(await applicationOfRun(store, 'ws_elsewhere', run.body.id)).toBeUndefined();
    expect(await applicationOfRun(store, d.workspaceId, 'run_none')).toBeUndefined();
    // A run never changes application: a change made behind the kernel's back is not read again.
    await store.db
      .updateTable('runs')
      .set({ agent_application_id: null })
      .where('id', '=', run.body.id)
      .execute();
    expect(await applicationOfRun(store, d.workspaceId, run.body.id)).toBe(d.appId);
    // The feeds' fence reads the same memory, and answers only the runs that exist.
    const many = await applicationsOfRuns(store, [run.body.id, 'run_none']);
    expect([...many]).toEqual([[run.body.id, d.appId]]);
  });
});

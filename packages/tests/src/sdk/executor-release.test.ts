import { createClient, isAirlockError } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { useExecutorKernel } from '../support/executor-kernel.js';
import { eventually, scriptedRun } from '../support/kernel.js';

/**
 * A claim its executor never started is handed back with `executor.release`, not left to
 * lapse: a lapse of a tool the run's manifest declares other than read-only fails
 * `outcome_unknown` (the kernel cannot tell it never ran), a release puts the row back unrun.
 */
const WRITE_MANIFEST = [
  { name: 'pay', input_schema: { type: 'object' }, risk_traits: ['write' as const] },
];

/** A bypass run of one `pay` call whose manifest declares `pay` a write. */
function payRun() {
  return {
    ...scriptedRun('bypass', [{ tool_calls: [{ name: 'pay' }] }, { final: 'paid' }]),
    tool_manifest: WRITE_MANIFEST,
  };
}

/** A fetch that holds each answer granting a claim back until `land` is called. */
function holdingClaims() {
  let held = false;
  let land: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    land = resolve;
  });
  const fetchHeld: typeof fetch = async (input, init) => {
    const answer = await fetch(input, init);
    if (String(input).endsWith('/claim')) {
      const body = await answer.text();
      if (!body.includes('"claim":null')) {
        held = true;
        await gate;
      }
      return new Response(body, { status: answer.status, headers: answer.headers });
    }
    return answer;
  };
  return { fetch: fetchHeld, isHeld: () => held, land };
}

describe('executor.release against a real kernel', () => {
  const fixture = useExecutorKernel();
  const { start, runs, ended } = fixture;
  const executorClient = () =>
    createClient({ url: fixture.kernel.url, token: fixture.kernel.workspace.tokens.executor });

  it('close() with a claim of a declared write on the wire hands it back: it runs once on the next executor', async () => {
    const ran: string[] = [];
    const claims = holdingClaims();
    // A short lease: left to lapse, the claim would fail outcome_unknown within the test.
    const closing = start(
      { pay: () => void ran.push('closing') },
      { fetch: claims.fetch, leaseMs: 2000 },
    );
    await closing.ready;
    const created = await runs().create(payRun());
    await eventually(claims.isHeld, { what: 'the claim to be granted and held back' });

    const closed = closing.close();
    claims.land();
    await closed;
    expect(ran).toEqual([]);

    start({ pay: () => void ran.push('next') });
    const view = await ended(created.id, 10_000);
    expect(view).toMatchObject({ state: 'completed', final_answer: 'paid' });
    expect(ran).toEqual(['next']);
    const [task] = await runs().run(created.id).tasks();
    expect(task).toMatchObject({ state: 'succeeded', error: null });
  });

  it('from a kernel without executor.release, close() still shortens the lease of a claim it hands back', async () => {
    const claims = holdingClaims();
    // An older kernel: no such route.
    const olderKernel: typeof fetch = (input, init) =>
      String(input).endsWith('/release')
        ? Promise.resolve(
            Response.json({ error: { code: 'not_found', detail: 'no route' } }, { status: 404 }),
          )
        : claims.fetch(input, init);
    // The default 30 s lease: only a shortened one lapses within the test.
    const closing = start({ pay: () => 'paid' }, { fetch: olderKernel });
    await closing.ready;
    const created = await runs().create(payRun());
    await eventually(claims.isHeld, { what: 'the claim to be granted and held back' });
    const closed = closing.close();
    claims.land();
    await closed;
    // The write's shortened lease lapses, and the kernel cannot tell it never ran.
    const [task] = await eventually(
      async () => {
        const tasks = await runs().run(created.id).tasks();
        return tasks[0]?.state === 'failed' && tasks;
      },
      { timeoutMs: 15_000, what: 'the shortened lease to lapse' },
    );
    expect(task).toMatchObject({ error: { code: 'outcome_unknown' } });
  });

  it('cancels a claim handed back after its run was stopped: it never ran, so not outcome_unknown', async () => {
    const created = await runs().create(payRun());
    const row = await eventually(async () => {
      const [task] = await runs().run(created.id).tasks();
      return task?.state === 'runnable' && task;
    });
    const executor = executorClient();
    const address = { run_id: created.id, task_key: row.key };
    const claim = await executor.call('executor.claim', { ...address, lease_ms: 60_000 });
    await runs().run(created.id).stop();
    const released = await executor.call('executor.release', {
      ...address,
      claim_id: claim.claim_id,
    });
    expect(released).toMatchObject({ state: 'canceled', error: null });
    const late = await executor
      .call('executor.commit', { ...address, claim_id: claim.claim_id, outcome: 'succeeded' })
      .catch((error: unknown) => error);
    expect(isAirlockError(late) && late.code).toBe('lease_lost');
  });

  it('puts a claimed row back to runnable, answers a repeat as it is, and refuses a wrong claim', async () => {
    const created = await runs().create(payRun());
    const row = await eventually(async () => {
      const [task] = await runs().run(created.id).tasks();
      return task?.state === 'runnable' && task;
    });
    const executor = executorClient();
    const address = { run_id: created.id, task_key: row.key };
    const claim = await executor.call('executor.claim', { ...address, lease_ms: 60_000 });

    const wrong = await executor
      .call('executor.release', { ...address, claim_id: 'claim_wrong' })
      .catch((error: unknown) => error);
    expect(isAirlockError(wrong) && wrong.code).toBe('lease_lost');
    expect((await runs().run(created.id).tasks())[0]).toMatchObject({ state: 'claimed' });

    const released = await executor.call('executor.release', {
      ...address,
      claim_id: claim.claim_id,
    });
    expect(released).toMatchObject({ state: 'runnable' });
    const again = await executor.call('executor.release', {
      ...address,
      claim_id: claim.claim_id,
    });
    expect(again).toMatchObject({ state: 'runnable' });
    // The released claim commits nothing: its row is no longer its.
    const late = await executor
      .call('executor.commit', { ...address, claim_id: claim.claim_id, outcome: 'succeeded' })
      .catch((error: unknown) => error);
    expect(isAirlockError(late) && late.code).toBe('lease_lost');

    const next = await executor.call('executor.claim', { ...address, lease_ms: 60_000 });
    const stale = await executor
      .call('executor.release', { ...address, claim_id: claim.claim_id })
      .catch((error: unknown) => error);
    expect(isAirlockError(stale) && stale.code).toBe('lease_lost');
    await executor.call('executor.commit', {
      ...address,
      claim_id: next.claim_id,
      outcome: 'succeeded',
      result: 'paid once',
    });
    expect(await ended(created.id)).toMatchObject({ state: 'completed' });
    const events = await runs().run(created.id).events();
    const types = events.map((event) => event.type).filter((type) => type.startsWith('task.'));
    expect(types.filter((type) => type === 'task.released')).toHaveLength(1);
    expect(types.indexOf('task.released')).toBeLessThan(types.lastIndexOf('task.claimed'));
  });
});

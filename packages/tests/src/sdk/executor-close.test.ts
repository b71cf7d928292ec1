import { createClient } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { useExecutorKernel } from '../support/executor-kernel.js';
import { eventually, scriptedRun } from '../support/kernel.js';

/**
 * A fetch that holds each answer granting a claim (of claimNext or of a targeted claim) back until
 * `land` is called: a claim the kernel granted, still on the wire.
 */
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

describe('executor close() with a claim on the wire, against a real kernel', () => {
  const fixture = useExecutorKernel();
  const { start, runs, ended } = fixture;

  it('waits for the claim, hands it back unrun, and the row runs again at once elsewhere', async () => {
    const ran: { who: string; attempt: number }[] = [];
    const claims = holdingClaims();
    // The default 30 s lease: a claim that is only left to lapse would not run again within the test.
    const closing = start(
      { pay: (_input, { attempt }) => void ran.push({ who: 'closing', attempt }) },
      { fetch: claims.fetch },
    );
    await closing.ready;
    const created = await runs().create(
      scriptedRun('bypass', [{ tool_calls: [{ name: 'pay' }] }, { final: 'paid' }]),
    );
    await eventually(claims.isHeld, { what: 'the claim to be granted and held back' });

    const closed = closing.close();
    claims.land();
    await closed;
    expect(ran).toEqual([]);
    expect(closing.running).toBe(0);

    start({ pay: (_input, { attempt }) => void ran.push({ who: 'next', attempt }) });
    const view = await ended(created.id, 8000);
    expect(view).toMatchObject({ state: 'completed', final_answer: 'paid' });
    expect(ran).toEqual([{ who: 'next', attempt: 2 }]);
  });

  it('take() with its claim on the wire: close waits for it, take resolves null, the row runs elsewhere', async () => {
    const ran: { who: string; attempt: number }[] = [];
    const claims = holdingClaims();
    // The nudges and the poll claim nothing: only take() does.
    const closing = start(
      { pay: (_input, { attempt }) => void ran.push({ who: 'closing', attempt }) },
      { fetch: claims.fetch, leaves: () => true, pollMs: 3_600_000 },
    );
    await closing.ready;
    const created = await runs().create(
      scriptedRun('bypass', [{ tool_calls: [{ name: 'pay' }] }, { final: 'paid' }]),
    );
    const row = await eventually(async () => {
      const [task] = await runs().run(created.id).tasks();
      return task?.state === 'runnable' && task;
    });
    const taken = closing.take(created.id, row.key);
    await eventually(claims.isHeld, { what: 'the targeted claim to be granted and held back' });

    const closed = closing.close();
    claims.land();
    await closed;
    expect(await taken).toBeNull();
    expect(ran).toEqual([]);

    start({ pay: (_input, { attempt }) => void ran.push({ who: 'next', attempt }) });
    const view = await ended(created.id, 8000);
    expect(view).toMatchObject({ state: 'completed', final_answer: 'paid' });
    expect(ran).toEqual([{ who: 'next', attempt: 2 }]);
  });
  it('runClaimed() while closing hands the claim back unrun, so the row runs elsewhere at once', async () => {
    const ran: { who: string; attempt: number }[] = [];
    const closing = start(
      { pay: (_input, { attempt }) => void ran.push({ who: 'closing', attempt }) },
      { leaves: () => true, pollMs: 3_600_000 },
    );
    await closing.ready;
    const created = await runs().create(
      scriptedRun('bypass', [{ tool_calls: [{ name: 'pay' }] }, { final: 'paid' }]),
    );
    const row = await eventually(async () => {
      const [task] = await runs().run(created.id).tasks();
      return task?.state === 'runnable' && task;
    });
    // Claimed for this process another way (as the MCP gateway's round does), with a 30 s lease.
    const claim = await createClient({
      url: fixture.kernel.url,
      token: fixture.kernel.workspace.tokens.executor,
    }).call('executor.claim', { run_id: created.id, task_key: row.key, lease_ms: 30_000 });

    const closed = closing.close();
    expect(await closing.runClaimed(claim)).toBeNull();
    await closed;
    expect(ran).toEqual([]);

    start({ pay: (_input, { attempt }) => void ran.push({ who: 'next', attempt }) });
    const view = await ended(created.id, 8000);
    expect(view).toMatchObject({ state: 'completed', final_answer: 'paid' });
    expect(ran).toEqual([{ who: 'next', attempt: 2 }]);
  });
});

describe('executor close({abort: true}) against a real kernel', () => {
  const { start, runs, ended } = useExecutorKernel();

  it('resolves promptly, stops heartbeating and hands the rows out again, even a handler that ignores the signal', async () => {
    const first: string[] = [];
    // The default 30 s lease: rows that are only left to lapse would not run again within the test.
    const closing = start({
      stubborn: () => {
        first.push('stubborn');
        return new Promise(() => {});
      },
      polite: (_input, { signal }) => {
        first.push('polite');
        return new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      },
    });
    await closing.ready;
    const created = await runs().create(
      scriptedRun('bypass', [
        { tool_calls: [{ name: 'stubborn' }, { name: 'polite' }] },
        { final: 'done', expect: ['stubborn ran', 'polite ran'] },
      ]),
    );
    await eventually(() => first.length === 2, { what: 'both handlers to start' });

    const startedAt = Date.now();
    const outcome = await Promise.race([
      closing.close({ abort: true }).then(() => 'closed'),
      new Promise((resolve) => setTimeout(() => resolve('still closing'), 4000)),
    ]);
    expect(outcome).toBe('closed');
    expect(Date.now() - startedAt).toBeLessThan(4000);
    expect(closing.running).toBe(0);

    const second: { tool: string; attempt: number }[] = [];
    start({
      stubborn: (_input, { attempt }) => {
        second.push({ tool: 'stubborn', attempt });
        return 'stubborn ran';
      },
      polite: (_input, { attempt }) => {
        second.push({ tool: 'polite', attempt });
        return 'polite ran';
      },
    });
    const view = await ended(created.id, 8000);
    expect(view).toMatchObject({ state: 'completed', final_answer: 'done' });
    expect(second.sort((a, b) => a.tool.localeCompare(b.tool))).toEqual([
      { tool: 'polite', attempt: 2 },
      { tool: 'stubborn', attempt: 2 },
    ]);
  });
});

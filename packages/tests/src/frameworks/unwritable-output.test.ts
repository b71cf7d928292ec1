import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import { afterEach, describe, expect, it } from 'vitest';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * A granted tool that returns what neither JSON nor `String()` can write (an
 * object without a prototype holding a BigInt or itself, as some parsers and
 * drivers make): the call is recorded as succeeded with a text of it. (Writing
 * the report threw a `TypeError`: `flush()` threw it, or, with
 * `awaitReports`, the tool that ran looked failed to the framework, and the
 * row was left granted with no outcome.)
 */
describe('a granted tool whose result JSON cannot write', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  function prototypeless(fields: Record<string, unknown>): object {
    return Object.assign(Object.create(null) as object, fields);
  }

  it.each([
    ['a BigInt', () => prototypeless({ id: 12n }), '{"id":"12"}'],
    [
      'itself',
      () => {
        const loop = prototypeless({}) as { self?: unknown };
        loop.self = loop;
        return loop;
      },
      '[object Object]',
    ],
  ])('holding %s: the tool hands it on and its row succeeds', async (_what, result, recorded) => {
    k = await startFrameworkKernel();
    for (const awaitReports of [false, true]) {
      const airlock = createOpenAIAgentsAirlock({
        ...k.connection,
        sessionId: `unwritable-${recorded.length}-${awaitReports}`,
        awaitReports,
      });
      const returned = result();
      const [lookup] = airlock.tools([
        { type: 'function', name: 'lookup', invoke: async () => returned },
      ]);
      const invoke = lookup?.invoke as (
        context: unknown,
        input: string,
        details: unknown,
      ) => unknown;
      await expect(invoke({}, '{"q":1}', { toolCall: { callId: 'w1' } })).resolves.toBe(returned);
      await airlock.flush();
      const [row] = await k.tasks(airlock.session.runId as string);
      expect(row).toMatchObject({ state: 'succeeded' });
      expect(JSON.stringify(row?.result)).toContain(JSON.stringify(recorded).slice(1, -1));
    }
  });
});

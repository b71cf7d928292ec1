import { describe, expect, it } from 'vitest';
import { useExecutorKernel } from '../support/executor-kernel.js';
import { eventually, scriptedRun } from '../support/kernel.js';

/*
 * An executor looked a row's tool up in its handlers object as a plain
 * property, so a tool named like a property every object inherits
 * (`constructor`, `toString`) found one of Object's own functions: a row
 * taken by its address ran it and committed what it returned as the tool's
 * result. Only the handlers given are the executor's tools; any other name
 * fails the row `unknown_tool`, and nothing runs.
 */
describe('an executor given a row of a tool named like an inherited property', () => {
  const fixture = useExecutorKernel();
  const { start, runs } = fixture;

  it.each(['constructor', 'toString'])('%s: the row fails unknown_tool', async (name) => {
    const executor = start({ bash: async () => 'ran' }, { leaves: () => true });
    await executor.ready;
    const created = await runs().create(
      scriptedRun('bypass', [
        { tool_calls: [{ name, input: { secret: 'x' } }] },
        { final: 'done' },
      ]),
    );
    const run = runs().run(created.id);
    const granted = await eventually(async () => {
      const [task] = await run.tasks();
      return task?.state === 'runnable' && task;
    });
    const committed = await executor.take(created.id, granted.key);
    expect(committed).toMatchObject({
      state: 'failed',
      result: null,
      error: { code: 'unknown_tool', detail: `this executor does not serve ${name}` },
    });
  });
});

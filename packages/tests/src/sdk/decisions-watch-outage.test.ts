import { createClient, type Decision } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { eventually, scriptedRun } from '../support/kernel.js';
import { useMemberKernel } from '../support/member-kernel.js';
import { startSteeringProxy } from '../support/steering-proxy.js';

/**
 * A decisions watcher whose read of what waits gets no answer (a kernel
 * restarting drops the connection, and the SDK's one retry of a read too):
 * its feed reconnects by itself, and the watcher, which never ends by
 * itself, reads again rather than ending with a ConnectionError.
 */
describe('a decisions watcher whose read gets no answer', () => {
  const file = useMemberKernel();

  it('reads again after a pause and yields the decision it was told of', async () => {
    const { kernel } = file;
    let dropReads = 0;
    const proxy = await startSteeringProxy(kernel.url, ({ path }) => {
      if (!path.startsWith('/trpc/decisions.list') || dropReads === 0) return 'forward';
      dropReads -= 1;
      return 'drop_answer';
    });
    try {
      const watched = createClient({ url: proxy.url, token: kernel.workspace.tokens.member });
      const watcher = watched.workspace(kernel.workspace.id).decisions.watch();
      const seen: Decision[] = [];
      let failure: unknown = null;
      const loop = (async () => {
        try {
          for await (const decision of watcher) seen.push(decision);
        } catch (error) {
          failure = error;
        }
      })();
      const runs = file.workspace().runs;
      const park = (command: string) =>
        runs.create(
          scriptedRun('ask', [
            { tool_calls: [{ name: 'bash', input: { command } }] },
            { final: 'done' },
          ]),
        );
      const first = await park('ls first');
      await eventually(() => seen.length === 1 || failure !== null, { what: 'the first park' });
      // The read the next park prompts, and the SDK's one retry of it, get no answer.
      dropReads = 2;
      const second = await park('ls second');
      await eventually(() => seen.length === 2 || failure !== null, {
        what: 'the second park, or the watcher to fail',
      });
      expect(failure).toBeNull();
      expect(dropReads).toBe(0);
      expect(seen.map((decision) => decision.run_id)).toEqual([first.id, second.id]);
      await watcher.return?.();
      await loop;
    } finally {
      await proxy.close();
    }
  });
});

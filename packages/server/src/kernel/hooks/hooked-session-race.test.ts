import { afterEach, describe, expect, it } from 'vitest';
import { conversationExists } from '../../store/conversations.js';
import { openHookSession } from '../../store/hook-sessions.js';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

/**
 * A session's first events racing (an agent's or an adapter's parallel calls
 * before any other event) open one session and one conversation: the
 * conversations the losers planted are not left behind, empty, in the store.
 */

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a session's first events racing (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      it('open one session and leave no empty conversation', async () => {
        d = await deploy(backend);
        const { store } = d.airlock.kernel.context;
        const key = {
          workspaceId: d.workspaceId,
          agentApplicationId: d.appId,
          agent: 'claude-code',
          sessionId: 's1',
        };
        const planted = ['conv_race1', 'conv_race2', 'conv_race3'];
        const sessions = await Promise.all(planted.map((id) => openHookSession(store, key, id)));
        const [kept] = new Set(sessions.map((session) => session.conversation_id));
        expect(sessions.every((session) => session.conversation_id === kept)).toBe(true);
        const left = [];
        for (const id of planted) {
          if (await conversationExists(store, d.workspaceId, id)) left.push(id);
        }
        expect(left).toEqual([kept]);
      });
    },
  );
}

import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels } from '../testing/harness.js';
import { bashPreTool, postHookEvent } from '../testing/hooked-events.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';
const RULES = [{ tool: 'Bash', path: 'command', match: 'ls*', verdict: 'allow' }];

/*
 * An agent that makes parallel calls at the start of a turn sends their checks at once. They used
 * to race to open the turn: each started a run, the session kept the last, and a call checked in
 * a run nobody followed could be granted a second time in the next.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a hooked turn opened by racing checks (${backend.name})`,
    () => {
      let d: Deployment;
      const kernels = sharedKernels();
      afterAll(() => kernels.close());
      afterEach(async () => {
        await d?.close();
      });

      const event = (body: Record<string, unknown>) => postHookEvent(d, body);
      const runsOfConversation = async (conversationId: string) =>
        (
          (await d.member.get(`${d.ws}/runs?limit=100`)).body.runs as {
            id: string;
            conversation_id: string | null;
          }[]
        ).filter((run) => run.conversation_id === conversationId);

      const raceChecks = async (ids: string[]) => {
        const answers = await Promise.all(ids.map((id) => event(bashPreTool(`ls ${id}`, id))));
        for (const answer of answers) expect(answer.body).toMatchObject({ verdict: 'allow' });
        return answers.map((answer) => answer.body as { run_id: string; conversation_id: string });
      };

      it('makes one run, in which each call is granted once', async () => {
        d = await kernels.deploy(backend);
        await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
        const ids = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'];
        const answers = await raceChecks(ids);
        const runIds = new Set(answers.map((answer) => answer.run_id));
        expect(runIds.size).toBe(1);
        const conversationId = answers[0]?.conversation_id as string;
        expect((await runsOfConversation(conversationId)).map((run) => run.id)).toEqual([
          ...runIds,
        ]);
        const tasks = (await d.member.get(`${d.ws}/runs/${[...runIds][0]}/tasks`)).body.tasks as {
          tool_call_id: string;
        }[];
        expect(tasks.map((task) => task.tool_call_id).sort()).toEqual(ids);
        // Each call was granted once: asked again, it is refused.
        for (const id of ids) {
          const again = await event(bashPreTool(`ls ${id}`, id));
          expect(again.body.error?.code).toBe('not_claimable');
        }
      });

      it('after a turn ended, racing checks open one next turn', async () => {
        d = await kernels.deploy(backend);
        await d.agent.put(PROFILE, { approval_mode: 'rules', approval_rules: RULES });
        const [first] = await raceChecks(['b1']);
        for (const id of ['b1']) {
          await event({
            event: 'post_tool',
            tool_name: 'Bash',
            tool_input: { command: `ls ${id}` },
            tool_use_id: id,
            outcome: 'succeeded',
            output: '',
          });
        }
        const stopped = await event({ event: 'stop' });
        expect(stopped.body.verdict).not.toBe('continue');
        const answers = await raceChecks(['c1', 'c2', 'c3', 'c4']);
        const next = new Set(answers.map((answer) => answer.run_id));
        expect(next.size).toBe(1);
        expect(next.has(first?.run_id as string)).toBe(false);
        expect(await runsOfConversation(first?.conversation_id as string)).toHaveLength(2);
      });
    },
  );
}

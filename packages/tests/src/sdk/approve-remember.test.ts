import { createClient, isValidationError } from '@airlock/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, scriptedRun, startTestKernel, type TestKernel } from '../support/kernel.js';

const MANIFEST = [
  {
    name: 'bash',
    input_schema: {
      type: 'object',
      required: ['command'],
      properties: { command: { type: 'string' } },
    },
    risk_traits: ['execute' as const],
  },
];

/** A standalone bypass run under `supervised`, created by the member (so its user overlay applies). */
function supervisedRun(command: string) {
  return {
    ...scriptedRun('bypass', [
      { tool_calls: [{ name: 'bash', input: { command } }] },
      { final: 'pushed' },
    ]),
    tool_manifest: MANIFEST,
    permission_rule_set: 'supervised',
  };
}

describe('decision.approve({remember}) through the SDK', () => {
  let kernel: TestKernel;
  beforeAll(async () => {
    kernel = await startTestKernel();
  });
  afterAll(async () => {
    await kernel?.close();
  });

  const member = () =>
    createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    );

  it('keeps a user allow rule for the captured set; the next matching call is granted', async () => {
    const ws = member();
    const first = await ws.runs.create(supervisedRun('git push origin main'));
    for await (const d of ws.runs.run(first.id).decisions) {
      if (!d.isApproval()) continue;
      expect(d.effect_profile).toMatchObject({ tool_name: 'bash' });
      await d.approve({
        remember: {
          scope: 'user',
          rule: { tools: ['bash'], argument_patterns: { '/command': 'git push origin *' } },
        },
      });
      break;
    }
    const second = await ws.runs.create(supervisedRun('git push origin feature'));
    const tasks = await eventually(async () => {
      const list = await ws.runs.run(second.id).tasks();
      return list.length > 0 ? list : null;
    });
    expect(tasks[0]!.state).toBe('runnable');
    const third = await ws.runs.create(supervisedRun('git push --force origin main'));
    const parked = await eventually(async () => {
      const list = await ws.runs.run(third.id).tasks();
      return list.length > 0 ? list : null;
    });
    expect(parked[0]!.state).toBe('needs_approval');
  });

  it('refuses remember on a call no rule set evaluated, and leaves it parked', async () => {
    const ws = member();
    const run = await ws.runs.create(
      scriptedRun('ask', [{ tool_calls: [{ name: 'ls' }] }, { final: 'x' }]),
    );
    for await (const d of ws.runs.run(run.id).decisions) {
      if (!d.isApproval()) continue;
      const error = await d.approve({ remember: { scope: 'user' } }).catch((e: unknown) => e);
      expect(isValidationError(error) && error.code).toBe('remember_unavailable');
      break;
    }
    const tasks = await ws.runs.run(run.id).tasks();
    expect(tasks[0]!.state).toBe('needs_approval');
  });
});

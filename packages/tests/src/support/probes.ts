import { createClient } from '@airlock/sdk';
import { eventually, scriptedRun, type TestKernel } from './kernel.js';

/**
 * Why questions cannot be tested on this kernel, or null when they can: a
 * model's `ask` call must rest at awaiting_input as a question row.
 */
export async function askUnsupportedReason(kernel: TestKernel): Promise<string | null> {
  const client = createClient({ url: kernel.url, token: kernel.workspace.tokens.member });
  const runs = client.workspace(kernel.workspace.id).runs;
  const created = await runs.create(
    scriptedRun('bypass', [
      { tool_calls: [{ name: 'ask', input: { prompt: 'probe?', options: ['a', 'b'] } }] },
      { final: 'probed' },
    ]),
  );
  const run = runs.run(created.id);
  try {
    const row = await eventually(async () => (await run.tasks())[0]);
    if (row.kind === 'ask' && row.state === 'awaiting_input') return null;
    return `the kernel does not support questions yet: a model's ask call became a ${row.kind} row at ${row.state}, not a question at awaiting_input (issue 5)`;
  } finally {
    if ((await run.get()).state === 'running') await run.stop();
  }
}

/**
 * Why the stop hook cannot be tested on this kernel, or null when it can: a
 * run-backed turn whose profile declares a stop hook must plant a hook row
 * before it completes.
 */
export async function stopHookUnsupportedReason(kernel: TestKernel): Promise<string | null> {
  const { tokens } = kernel.workspace;
  const agent = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${kernel.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${tokens.agent}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const declared = await agent('PUT', '/agent_api/v1/profile/configuration', {
    approval_mode: 'bypass',
    lifecycle_hooks: { stop: { tool: 'probe_stop', timeout_ms: 5000, max_continuations: 1 } },
  });
  if (declared.status !== 200) {
    return `the kernel refused a stop hook declaration (${declared.status})`;
  }
  const conversation = await agent('POST', '/agent_api/v1/conversations', {});
  const turn = await agent('POST', `/agent_api/v1/conversations/${conversation.body.id}/inputs`, {
    input: 'probe',
    provider: { kind: 'scripted', rounds: [{ final: 'probed' }] },
  });
  const client = createClient({ url: kernel.url, token: tokens.member });
  const run = client.workspace(kernel.workspace.id).runs.run(String(turn.body.id));
  try {
    const settled = await eventually(async () => {
      const [view, tasks] = await Promise.all([run.get(), run.tasks()]);
      return tasks.some((task) => task.kind === 'hook') || view.state !== 'running'
        ? { view, tasks }
        : null;
    });
    if (settled.tasks.some((task) => task.kind === 'hook')) return null;
    return `the kernel does not run lifecycle hooks yet: a turn declaring a stop hook ended ${settled.view.state} without planting a hook task (issue 5)`;
  } finally {
    if ((await run.get()).state === 'running') await run.stop();
    await agent('PUT', '/agent_api/v1/profile/configuration', { approval_mode: 'ask' });
  }
}

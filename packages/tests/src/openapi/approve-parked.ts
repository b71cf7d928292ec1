import createClient from 'openapi-fetch';
import type { components, paths } from './fixtures/airlock-api.js';

/** A task row as the generated types read it. */
export type GeneratedTask = components['schemas']['Task'];

/**
 * What a third-party client written against the OpenAPI document alone does:
 * start a run whose one call parks, then approve the parked call. Typed only
 * by openapi-typescript's output; no Airlock package is imported.
 */
export async function parkAndApprove(options: {
  url: string;
  token: string;
  workspaceId: string;
}): Promise<{ parked: GeneratedTask; approved: GeneratedTask }> {
  const client = createClient<paths>({
    baseUrl: options.url,
    headers: { authorization: `Bearer ${options.token}` },
  });
  const workspace = { workspace_id: options.workspaceId };
  const created = await client.POST('/api/v1/workspaces/{workspace_id}/runs', {
    params: { path: workspace },
    body: {
      approval_mode: 'ask',
      approval_rules: [{ tool: 'bash', path: 'command', match: 'ls*', verdict: 'allow' }],
      provider: {
        kind: 'scripted',
        rounds: [{ tool_calls: [{ name: 'bash', input: { command: 'rm -rf ./build' } }] }],
      },
    },
  });
  if (!created.data) throw new Error(`runs.create failed: ${created.error?.error.code}`);
  const run = { ...workspace, run_id: created.data.id };
  const tasks = await client.GET('/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks', {
    params: { path: run },
  });
  const parked = tasks.data?.tasks.find((task) => task.state === 'needs_approval');
  if (!parked) throw new Error('no parked call');
  const approved = await client.POST(
    '/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks/{task_key}/approve',
    { params: { path: { ...run, task_key: parked.key } } },
  );
  if (!approved.data) {
    // The error body is typed too: its code is one of the codes approve declares.
    const code: 'task_not_waiting' | string = approved.error.error.code;
    throw new Error(`approve failed: ${code}`);
  }
  return { parked, approved: approved.data };
}

import { createCredential, createWorkspace } from '../store/accounts.js';
import { createAgentApplication } from '../store/applications.js';
import type { Store } from '../store/store.js';

/** The tokens of one workspace, one of each kind, all of its one agent application. */
export interface WorkspaceTokens {
  agent: string;
  executor: string;
  member: string;
}

/**
 * Creates a workspace named `name` with an agent application (`app`) and one
 * agent, executor and member token of it (the member an admin, as the first
 * member of a kernel is): the setup of tests and benchmarks.
 */
export async function workspaceWithTokens(
  store: Store,
  name: string,
): Promise<{ workspaceId: string; appId: string; tokens: WorkspaceTokens }> {
  const workspace = await createWorkspace(store, name);
  const app = await createAgentApplication(store, { workspaceId: workspace.id, name: 'app' });
  const token = async (kind: keyof WorkspaceTokens) =>
    (
      await createCredential(store, {
        workspaceId: workspace.id,
        kind,
        agentApplicationId: app.id,
        ...(kind === 'member' ? { role: 'admin' as const } : {}),
      })
    ).token;
  return {
    workspaceId: workspace.id,
    appId: app.id,
    tokens: {
      agent: await token('agent'),
      executor: await token('executor'),
      member: await token('member'),
    },
  };
}

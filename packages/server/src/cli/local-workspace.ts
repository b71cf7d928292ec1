import {
  recordApplicationChange,
  recordCredentialCreated,
} from '../kernel/verbs/account-changes.js';
import {
  type CredentialKind,
  createCredential,
  createWorkspace,
  listWorkspaces,
} from '../store/accounts.js';
import { ADVISORY_LOCK_KEYS, withAdvisoryLock } from '../store/advisory-lock.js';
import { createAgentApplication, listAgentApplications } from '../store/applications.js';
import type { Store, Tx } from '../store/store.js';

/** The local workspace, and its tokens when this call created it. */
export interface LocalWorkspace {
  workspaceId: string;
  agentApplicationId: string;
  created: boolean;
  tokens: Record<CredentialKind, string> | null;
}

/**
 * Finds the first workspace, or creates `local` with an agent application and
 * one token per kind. On PostgreSQL, processes starting together take turns
 * (an advisory lock), so exactly one of them creates it and prints its tokens.
 */
export async function ensureLocalWorkspace(store: Store): Promise<LocalWorkspace> {
  return withAdvisoryLock(store, ADVISORY_LOCK_KEYS.localWorkspace, () =>
    findOrCreateLocalWorkspace(store),
  );
}

/** Who made what a local store starts with: the operator, through the CLI (first start, `airlock token`). */
const LOCAL_MAKER = 'operator:cli';

function recordLocalApplication(workspaceId: string, name: string) {
  return (tx: Tx, applicationId: string) =>
    recordApplicationChange(tx, {
      workspaceId,
      principal: LOCAL_MAKER,
      applicationId,
      change: 'agent_application_created',
      name,
    });
}

async function findOrCreateLocalWorkspace(store: Store): Promise<LocalWorkspace> {
  const [existing] = await listWorkspaces(store);
  if (existing) {
    // A removed application fences every credential of it: a new token goes to a live one.
    const [app] = await listAgentApplications(store, existing.id);
    const agentApplicationId =
      app?.id ??
      (
        await createAgentApplication(store, {
          workspaceId: existing.id,
          name: 'local-agent',
          recordIn: recordLocalApplication(existing.id, 'local-agent'),
        })
      ).id;
    return { workspaceId: existing.id, agentApplicationId, created: false, tokens: null };
  }
  const workspace = await createWorkspace(store, 'local');
  const app = await createAgentApplication(store, {
    workspaceId: workspace.id,
    name: 'local-agent',
    recordIn: recordLocalApplication(workspace.id, 'local-agent'),
  });
  const tokens = {} as Record<CredentialKind, string>;
  for (const kind of ['agent', 'executor', 'member'] as const) {
    const made = await createCredential(store, {
      workspaceId: workspace.id,
      kind,
      agentApplicationId: app.id,
      // The first member is the workspace's admin: it governs, and makes the others.
      ...(kind === 'member' ? { role: 'admin' as const } : {}),
      label: `local ${kind}`,
      recordIn: (tx, made) => recordCredentialCreated(tx, LOCAL_MAKER, made),
    });
    tokens[kind] = made.token;
  }
  return { workspaceId: workspace.id, agentApplicationId: app.id, created: true, tokens };
}

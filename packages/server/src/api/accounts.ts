import { OPERATION_CONTRACTS } from '@airlock/core';
import { AirlockError } from '../errors.js';
import type { Kernel } from '../kernel/kernel.js';
import {
  recordApplicationChange,
  recordCredentialCreated,
  recordCredentialRelabelled,
} from '../kernel/verbs/account-changes.js';
import {
  removeAgentApplication,
  revokeCredentialAndReaddress,
} from '../kernel/verbs/revocation.js';
import {
  createCredential,
  listCredentials,
  principalName,
  setCredentialLabel,
} from '../store/accounts.js';
import {
  createAgentApplication,
  findAgentApplication,
  listApplicationRecords,
} from '../store/applications.js';
import { implement } from './operation.js';

/** POST /api/v1/workspaces/{ws}/credentials: a new bearer token, shown once. */
export const createCredentialOperation = implement(
  OPERATION_CONTRACTS['credentials.create'],
  async ({ kernel, principal }, input) => {
    const store = kernel.context.store;
    // Omitted: the caller's application; null: a member credential of the workspace itself.
    const applicationId =
      input.agent_application_id === undefined
        ? principal.agent_application_id
        : input.agent_application_id;
    // A live application is checked by createCredential, with its row locked against a removal.
    if (!applicationId && input.kind !== 'member') {
      throw new AirlockError(
        'invalid_input',
        `a ${input.kind} credential belongs to an agent application: give agent_application_id`,
      );
    }
    if (input.role !== undefined && input.kind !== 'member') {
      throw new AirlockError(
        'invalid_input',
        `a role belongs to a member credential; leave it out for a ${input.kind} credential`,
      );
    }
    const made = await createCredential(store, {
      workspaceId: principal.workspace_id,
      kind: input.kind,
      agentApplicationId: applicationId ?? null,
      ...(input.role ? { role: input.role } : {}),
      ...(input.label ? { label: input.label } : {}),
      recordIn: (tx, made) => recordCredentialCreated(tx, principalName(principal), made),
    });
    return {
      credential_id: made.credential.credential_id,
      kind: made.credential.kind,
      agent_application_id: made.credential.agent_application_id,
      role: made.credential.role,
      label: made.credential.label,
      token: made.token,
    };
  },
);

/** POST /api/v1/workspaces/{ws}/credentials/{credential_id}/revoke */
export const revokeCredentialOperation = implement(
  OPERATION_CONTRACTS['credentials.revoke'],
  async ({ kernel, principal }, input) => {
    const revocation = await revokeCredentialAndReaddress(kernel.context.store, {
      idOrToken: input.credential_id,
      workspaceId: principal.workspace_id,
      principal: principalName(principal),
      // A workspace left with no admin could not be governed through the API again.
      keepAnAdmin: true,
    });
    for (const ended of kernel.credentialEnds) ended();
    return revocation;
  },
);

/** POST /api/v1/workspaces/{ws}/credentials/{credential_id}/label */
export const labelCredentialOperation = implement(
  OPERATION_CONTRACTS['credentials.label'],
  async ({ kernel, principal }, input) => {
    const credential = await setCredentialLabel(kernel.context.store, {
      workspaceId: principal.workspace_id,
      credentialId: input.credential_id,
      label: input.label,
      recordIn: (tx, change) => recordCredentialRelabelled(tx, principalName(principal), change),
    });
    if (!credential) {
      throw new AirlockError('credential_not_found', `no credential ${input.credential_id}`);
    }
    return {
      credential_id: credential.credential_id,
      kind: credential.kind,
      agent_application_id: credential.agent_application_id,
      role: credential.role,
      label: credential.label,
      created_at: credential.created_at,
      revoked_at: credential.revoked_at,
    };
  },
);

/** POST /api/v1/workspaces/{ws}/agent_applications/{id}/remove */
export const removeAgentApplicationOperation = implement(
  OPERATION_CONTRACTS['agentApplications.remove'],
  async ({ kernel, principal }, input) => {
    const removal = await removeAgentApplication(kernel.context, {
      workspaceId: principal.workspace_id,
      agentApplicationId: input.agent_application_id,
      principal: principalName(principal),
    });
    for (const ended of kernel.credentialEnds) ended();
    return { agent_application_id: input.agent_application_id, ...removal };
  },
);

/** GET /api/v1/workspaces/{ws}/credentials/self */
export const selfCredentialOperation = implement(
  OPERATION_CONTRACTS['credentials.self'],
  async ({ principal }) => ({
    credential_id: principal.credential_id,
    kind: principal.kind,
    workspace_id: principal.workspace_id,
    agent_application_id: principal.agent_application_id,
    role: principal.role,
    principal: principalName(principal),
  }),
);

/** GET /api/v1/workspaces/{ws}/credentials */
export const listCredentialsOperation = implement(
  OPERATION_CONTRACTS['credentials.list'],
  async ({ kernel, principal }, input) => {
    const all = await listCredentials(kernel.context.store, principal.workspace_id);
    const shown = input.include_revoked ? all : all.filter((c) => c.revoked_at === null);
    return {
      credentials: shown.map((c) => ({
        credential_id: c.credential_id,
        kind: c.kind,
        agent_application_id: c.agent_application_id,
        role: c.role,
        label: c.label,
        created_at: c.created_at,
        revoked_at: c.revoked_at,
      })),
    };
  },
);

/** POST /api/v1/workspaces/{ws}/agent_applications */
export const createAgentApplicationOperation = implement(
  OPERATION_CONTRACTS['agentApplications.create'],
  async ({ kernel, principal }, input) => {
    const store = kernel.context.store;
    const { id } = await createAgentApplication(store, {
      workspaceId: principal.workspace_id,
      name: input.name,
      recordIn: (tx, applicationId) =>
        recordApplicationChange(tx, {
          workspaceId: principal.workspace_id,
          principal: principalName(principal),
          applicationId,
          change: 'agent_application_created',
          name: input.name,
        }),
    });
    return readApplication(kernel, principal.workspace_id, id);
  },
);

/** GET /api/v1/workspaces/{ws}/agent_applications */
export const listAgentApplicationsOperation = implement(
  OPERATION_CONTRACTS['agentApplications.list'],
  async ({ kernel, principal }) => {
    const rows = await listApplicationRecords(kernel.context.store, principal.workspace_id);
    return { agent_applications: rows };
  },
);

async function readApplication(kernel: Kernel, workspaceId: string, id: string) {
  const row = await findAgentApplication(kernel.context.store, workspaceId, id);
  if (!row) throw new AirlockError('agent_application_not_found', `no agent application ${id}`);
  return row;
}

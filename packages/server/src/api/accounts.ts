import { z } from 'zod';
import { AirlockError } from '../kernel/errors.js';
import { removeAgentApplication, revokeCredentialAndReaddress } from '../kernel/revocation.js';
import { createCredential, principalName } from '../store/accounts.js';
import { defineOperation } from './operation.js';
import { IdSchema, WorkspaceParams } from './schemas.js';

/** POST /api/v1/workspaces/{ws}/credentials: a new bearer token, shown once. */
export const createCredentialOperation = defineOperation({
  name: 'credentials.create',
  summary:
    "Create a credential of the workspace; agent and executor credentials belong to an agent application (default: the caller's)",
  method: 'POST',
  path: '/api/v1/workspaces/{workspace_id}/credentials',
  planes: ['member'],
  status: 201,
  input: z.strictObject({
    ...WorkspaceParams,
    kind: z.enum(['agent', 'executor', 'member']),
    agent_application_id: IdSchema.optional(),
    label: z.string().min(1).max(200).optional(),
  }),
  output: z.object({
    credential_id: z.string(),
    kind: z.enum(['agent', 'executor', 'member']),
    agent_application_id: z.string().nullable(),
    label: z.string(),
    token: z.string(),
  }),
  async handle({ kernel, principal }, input) {
    const store = kernel.context.store;
    const applicationId = input.agent_application_id ?? principal.agent_application_id;
    if (applicationId) {
      const application = await store.db
        .selectFrom('agent_applications')
        .select(['id', 'removed_at'])
        .where('id', '=', applicationId)
        .where('workspace_id', '=', principal.workspace_id)
        .executeTakeFirst();
      if (!application || application.removed_at !== null) {
        throw new AirlockError(
          'agent_application_not_found',
          `no agent application ${applicationId} in this workspace`,
        );
      }
    } else if (input.kind !== 'member') {
      throw new AirlockError(
        'invalid_input',
        `a ${input.kind} credential belongs to an agent application: give agent_application_id`,
      );
    }
    const made = await createCredential(store, {
      workspaceId: principal.workspace_id,
      kind: input.kind,
      agentApplicationId: applicationId ?? null,
      ...(input.label ? { label: input.label } : {}),
    });
    return {
      credential_id: made.credential.credential_id,
      kind: made.credential.kind,
      agent_application_id: made.credential.agent_application_id,
      label: made.credential.label,
      token: made.token,
    };
  },
});

/** POST /api/v1/workspaces/{ws}/credentials/{credential_id}/revoke */
export const revokeCredentialOperation = defineOperation({
  name: 'credentials.revoke',
  summary:
    "Revoke a credential of the workspace; an application's last executor leaves its held rows addressed to nobody (task.readdressed)",
  method: 'POST',
  path: '/api/v1/workspaces/{workspace_id}/credentials/{credential_id}/revoke',
  planes: ['member'],
  input: z.strictObject({ ...WorkspaceParams, credential_id: IdSchema }),
  output: z.object({
    credential_id: z.string(),
    kind: z.enum(['agent', 'executor', 'member']),
    readdressed: z.array(z.object({ run_id: z.string(), task_key: z.string() })),
  }),
  handle({ kernel, principal }, input) {
    return revokeCredentialAndReaddress(kernel.context.store, {
      idOrToken: input.credential_id,
      workspaceId: principal.workspace_id,
      principal: principalName(principal),
    });
  },
});

/** POST /api/v1/workspaces/{ws}/agent_applications/{id}/remove */
export const removeAgentApplicationOperation = defineOperation({
  name: 'agentApplications.remove',
  summary:
    'Remove an agent application: its credentials are fenced at once, its running runs are force-stopped asynchronously',
  method: 'POST',
  path: '/api/v1/workspaces/{workspace_id}/agent_applications/{agent_application_id}/remove',
  planes: ['member'],
  status: 202,
  input: z.strictObject({ ...WorkspaceParams, agent_application_id: IdSchema }),
  output: z.object({
    agent_application_id: z.string(),
    removed_at: z.number().int(),
    stopping_run_ids: z.array(z.string()),
  }),
  async handle({ kernel, principal }, input) {
    const removal = await removeAgentApplication(kernel.context, {
      workspaceId: principal.workspace_id,
      agentApplicationId: input.agent_application_id,
    });
    return { agent_application_id: input.agent_application_id, ...removal };
  },
});

import { z } from 'zod';
import { removeAgentApplication, revokeCredentialAndReaddress } from '../kernel/revocation.js';
import { principalName } from '../store/accounts.js';
import { defineOperation } from './operation.js';
import { IdSchema, WorkspaceParams } from './schemas.js';

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

import { z } from 'zod';
import { IdSchema, WorkspaceParams } from '../inputs.js';
import { defineContract } from '../operation.js';
import { named } from '../registry.js';
import { operationRoute } from '../routes.js';
import { labelText, personText } from '../stored-text.js';
import { CredentialKindSchema, MemberRoleSchema } from '../views.js';

/** A credential as listed: never its token. */
export const CredentialViewSchema = named(
  z.object({
    credential_id: z.string(),
    kind: CredentialKindSchema,
    agent_application_id: z.string().nullable(),
    /** A member credential's role; null for agent and executor credentials. */
    role: MemberRoleSchema.nullable(),
    label: z.string(),
    created_at: z.number().int(),
    revoked_at: z.number().int().nullable(),
  }),
  { id: 'Credential', description: 'A credential as listed (its token is shown only once).' },
);
/** A credential as listed. */
export type CredentialView = z.infer<typeof CredentialViewSchema>;

/** An agent application of the workspace. */
export const AgentApplicationViewSchema = named(
  z.object({
    id: z.string(),
    name: z.string(),
    created_at: z.number().int(),
    removed_at: z.number().int().nullable(),
  }),
  { id: 'AgentApplication', description: 'An agent application of the workspace.' },
);
/** An agent application. */
export type AgentApplicationView = z.infer<typeof AgentApplicationViewSchema>;

/** POST /api/v1/workspaces/{ws}/credentials: a new bearer token, shown once. */
export const createCredentialContract = defineContract({
  ...operationRoute('credentials.create'),
  summary:
    "Create a credential of the workspace (admin only). `agent_application_id` left out means the caller's application, for every kind; `null` means none, which only a member credential may have (it then acts for the workspace, and outlives every application). A member credential's `role` is `approver` unless `admin` is asked for; other kinds take no role",
  planes: ['member'],
  role: 'admin',
  status: 201,
  input: z.strictObject({
    ...WorkspaceParams,
    kind: CredentialKindSchema,
    agent_application_id: IdSchema.nullable().optional(),
    role: MemberRoleSchema.optional(),
    label: labelText(z.string().min(1).max(200)).optional(),
  }),
  output: z.object({
    credential_id: z.string(),
    kind: CredentialKindSchema,
    agent_application_id: z.string().nullable(),
    role: MemberRoleSchema.nullable(),
    label: z.string(),
    token: z.string(),
  }),
  errors: ['agent_application_not_found', 'label_taken', 'admin_required'],
});

const BOOLEAN_TEXT = z.stringbool();

/**
 * A boolean, or its text (`true`, `false`, `yes`, ...): a query string and the
 * inbox send the text, the SDK and tRPC clients JSON's boolean. Read in front
 * of `z.boolean()` so the OpenAPI document says the boolean it is.
 */
const booleanOrText = z.preprocess((value: boolean | string | undefined, ctx) => {
  if (typeof value !== 'string') return value;
  const read = BOOLEAN_TEXT.safeParse(value);
  if (read.success) return read.data;
  for (const issue of read.error.issues) ctx.addIssue({ ...issue, input: value } as never);
  return z.NEVER;
}, z.boolean().default(false));

/** GET /api/v1/workspaces/{ws}/credentials */
export const listCredentialsContract = defineContract({
  ...operationRoute('credentials.list'),
  summary: 'List the credentials of the workspace (never their tokens)',
  planes: ['member'],
  input: z.strictObject({ ...WorkspaceParams, include_revoked: booleanOrText }),
  output: z.object({ credentials: z.array(CredentialViewSchema) }),
  errors: [],
});

/** GET /api/v1/workspaces/{ws}/credentials/self */
export const selfCredentialContract = defineContract({
  ...operationRoute('credentials.self'),
  summary:
    "Who the calling credential is: its id, kind, workspace, application, role (members) and the principal its decisions are recorded under; the workspace id `-` names the credential's own workspace, for this read alone",
  planes: ['agent', 'executor', 'member'],
  input: z.strictObject({ ...WorkspaceParams }),
  output: z.object({
    credential_id: z.string(),
    kind: CredentialKindSchema,
    workspace_id: z.string(),
    agent_application_id: z.string().nullable(),
    role: MemberRoleSchema.nullable(),
    /** `kind:credential_id`, as decisions and events name their principal. */
    principal: z.string(),
  }),
  errors: [],
});

/** POST /api/v1/workspaces/{ws}/credentials/{credential_id}/revoke */
export const revokeCredentialContract = defineContract({
  ...operationRoute('credentials.revoke'),
  summary:
    "Revoke a credential of the workspace (admin only); an application's last executor leaves its held rows addressed to nobody (task.readdressed); the workspace's last active admin member credential is refused (409 last_admin); the answer names every approval policy rule its live members can no longer meet",
  planes: ['member'],
  role: 'admin',
  input: z.strictObject({ ...WorkspaceParams, credential_id: IdSchema }),
  output: z.object({
    credential_id: z.string(),
    kind: CredentialKindSchema,
    readdressed: z.array(z.object({ run_id: z.string(), task_key: z.string() })),
    /**
     * Each approval policy rule whose quorum the workspace's live members can no longer meet
     * now that this credential is revoked: the calls it covers wait for their deadline until the
     * policy changes. Empty when every rule can still be met.
     */
    unreachable_approval_rules: z.array(
      z.object({
        rule_index: z.number().int(),
        required: z.number().int(),
        approvers_left: z.number().int(),
      }),
    ),
  }),
  errors: ['credential_not_found', 'last_admin', 'admin_required'],
});

/** POST /api/v1/workspaces/{ws}/agent_applications */
export const createAgentApplicationContract = defineContract({
  ...operationRoute('agentApplications.create'),
  summary: 'Create an agent application of the workspace (admin only; then mint its credentials)',
  planes: ['member'],
  role: 'admin',
  status: 201,
  input: z.strictObject({ ...WorkspaceParams, name: personText(z.string().min(1).max(200)) }),
  output: AgentApplicationViewSchema,
  errors: ['admin_required'],
});

/** GET /api/v1/workspaces/{ws}/agent_applications */
export const listAgentApplicationsContract = defineContract({
  ...operationRoute('agentApplications.list'),
  summary: 'List the agent applications of the workspace, removed ones included',
  planes: ['member'],
  input: z.strictObject(WorkspaceParams),
  output: z.object({ agent_applications: z.array(AgentApplicationViewSchema) }),
  errors: [],
});

/** POST /api/v1/workspaces/{ws}/agent_applications/{id}/remove */
export const removeAgentApplicationContract = defineContract({
  ...operationRoute('agentApplications.remove'),
  summary:
    'Remove an agent application (admin only): its credentials are fenced at once, its running runs are force-stopped asynchronously',
  planes: ['member'],
  role: 'admin',
  status: 202,
  input: z.strictObject({ ...WorkspaceParams, agent_application_id: IdSchema }),
  output: z.object({
    agent_application_id: z.string(),
    removed_at: z.number().int(),
    stopping_run_ids: z.array(z.string()),
  }),
  errors: ['agent_application_not_found', 'application_has_member_credentials', 'admin_required'],
});

/** POST /api/v1/workspaces/{ws}/credentials/{credential_id}/label */
export const labelCredentialContract = defineContract({
  ...operationRoute('credentials.label'),
  summary:
    "Rename a credential (admin only): its label is the member's name shown on decisions, the run story and the inbox instead of the credential id, so a label that names another active credential of the workspace (case, width, spacing and invisible characters aside) is refused (409 label_taken)",
  planes: ['member'],
  role: 'admin',
  input: z.strictObject({
    ...WorkspaceParams,
    credential_id: IdSchema,
    label: labelText(z.string().trim().min(1).max(200)),
  }),
  output: CredentialViewSchema,
  errors: ['credential_not_found', 'label_taken', 'admin_required'],
});

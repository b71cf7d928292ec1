import { z } from 'zod';
import { OverlayScopeSchema } from '../../schemas/permissions.js';
import { IdSchema, WorkspaceParams } from '../inputs.js';
import { defineContract } from '../operation.js';
import { named } from '../registry.js';
import { operationRoute } from '../routes.js';

/** An overlay document as the member plane shows it (spec 003). */
export const OverlayViewSchema = named(
  z.object({
    scope: OverlayScopeSchema,
    owner_id: z.string(),
    groups: z.array(z.object({ ruleSetId: z.string(), rules: z.array(z.unknown()) })),
    digest: z.string(),
    trusted_digest: z.string().nullable(),
    active: z.boolean(),
    updated_by: z.string().nullable(),
    updated_at: z.number().int().nullable(),
  }),
  {
    id: 'Overlay',
    description: 'A permission overlay document of one scope, with its digest and trust.',
  },
);
/** An overlay document as shown. */
export type OverlayView = z.infer<typeof OverlayViewSchema>;

const OverlayParams = { ...WorkspaceParams, scope: OverlayScopeSchema, owner_id: IdSchema };

/** GET .../overlays/{scope}/{owner_id} */
export const getOverlayContract = defineContract({
  ...operationRoute('overlays.get'),
  summary:
    'Read an overlay document (user: owner "me", or "member:<credential id>" of a revoked member for an admin; project: an agent application; conversation) with its digest',
  planes: ['member'],
  input: z.strictObject(OverlayParams),
  output: OverlayViewSchema,
  errors: ['agent_application_not_found', 'conversation_not_found'],
});

/** PUT .../overlays/{scope}/{owner_id} */
export const replaceOverlayContract = defineContract({
  ...operationRoute('overlays.replace'),
  summary:
    'Replace a whole overlay document if it still has expected_digest (409 stale_digest otherwise); a project document becomes untrusted. A project document, a user document holding a guardrail, and a new allow rule while the approval policy asks more than one approval by any member, need an admin. An admin may replace the user document of a revoked member (owner "member:<credential id>") only to remove rules from it',
  planes: ['member'],
  input: z.strictObject({
    ...OverlayParams,
    expected_digest: z.string().min(1).max(200),
    // Checked by core, which reports every problem with its pointer.
    groups: z.unknown(),
  }),
  output: OverlayViewSchema,
  errors: [
    'agent_application_not_found',
    'conversation_not_found',
    'stale_digest',
    'invalid_configuration',
    'admin_required',
  ],
});

/** POST .../overlays/project/{owner_id}/trust */
export const trustOverlayContract = defineContract({
  ...operationRoute('overlays.trust'),
  summary:
    "Trust a project overlay document's exact digest (admin only): its groups apply until it changes (409 stale_digest if it already did)",
  planes: ['member'],
  role: 'admin',
  input: z.strictObject({
    ...WorkspaceParams,
    owner_id: IdSchema,
    digest: z.string().min(1).max(200),
  }),
  output: OverlayViewSchema,
  errors: ['agent_application_not_found', 'stale_digest', 'admin_required'],
});

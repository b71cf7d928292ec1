import { type OverlayScope, OverlayScopeSchema, validateOverlayDocument } from '@airlock/core';
import { z } from 'zod';
import { AirlockError } from '../kernel/errors.js';
import type { Kernel } from '../kernel/kernel.js';
import { type Principal, principalName } from '../store/accounts.js';
import { type OverlayKey, readOverlay, replaceOverlay, trustOverlay } from '../store/overlays.js';
import { defineOperation } from './operation.js';
import { IdSchema, WorkspaceParams } from './schemas.js';

/** An overlay document as the member plane shows it. */
export const OverlayViewSchema = z.object({
  scope: OverlayScopeSchema,
  owner_id: z.string(),
  groups: z.array(z.object({ ruleSetId: z.string(), rules: z.array(z.unknown()) })),
  digest: z.string(),
  trusted_digest: z.string().nullable(),
  active: z.boolean(),
  updated_by: z.string().nullable(),
  updated_at: z.number().int().nullable(),
});

const OverlayParams = { ...WorkspaceParams, scope: OverlayScopeSchema, owner_id: IdSchema };
const OVERLAY_PATH = '/api/v1/workspaces/{workspace_id}/overlays/{scope}/{owner_id}';

/**
 * Resolves who owns a document and checks the caller may manage it: a
 * member's own user document (`me`), an agent application or a conversation
 * of the workspace.
 * @throws AirlockError forbidden, agent_application_not_found, conversation_not_found.
 */
async function overlayKey(
  kernel: Kernel,
  principal: Principal,
  input: { scope: OverlayScope; owner_id: string },
): Promise<OverlayKey> {
  const workspaceId = principal.workspace_id;
  const db = kernel.context.store.db;
  if (input.scope === 'user') {
    const self = principalName(principal);
    if (input.owner_id !== 'me' && input.owner_id !== self) {
      throw new AirlockError(
        'forbidden',
        'a member manages only its own user overlay (owner "me")',
      );
    }
    return { workspaceId, scope: 'user', ownerId: self };
  }
  if (input.scope === 'project') {
    const app = await db
      .selectFrom('agent_applications')
      .select('id')
      .where('id', '=', input.owner_id)
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    if (!app) {
      throw new AirlockError(
        'agent_application_not_found',
        `no agent application ${input.owner_id}`,
      );
    }
    return { workspaceId, scope: 'project', ownerId: app.id };
  }
  const conversation = await db
    .selectFrom('conversations')
    .select('id')
    .where('id', '=', input.owner_id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  if (!conversation) {
    throw new AirlockError('conversation_not_found', `no conversation ${input.owner_id}`);
  }
  return { workspaceId, scope: 'conversation', ownerId: conversation.id };
}

/** GET .../overlays/{scope}/{owner_id} */
export const getOverlay = defineOperation({
  name: 'overlays.get',
  summary:
    'Read an overlay document (user: owner "me"; project: an agent application; conversation) with its digest',
  method: 'GET',
  path: OVERLAY_PATH,
  planes: ['member'],
  input: z.strictObject(OverlayParams),
  output: OverlayViewSchema,
  async handle({ kernel, principal }, input) {
    const key = await overlayKey(kernel, principal, input);
    return readOverlay(kernel.context.store.db, key);
  },
});

/** PUT .../overlays/{scope}/{owner_id} */
export const replaceOverlayOperation = defineOperation({
  name: 'overlays.replace',
  summary:
    'Replace a whole overlay document if it still has expected_digest (409 stale_digest otherwise); a project document becomes untrusted',
  method: 'PUT',
  path: OVERLAY_PATH,
  planes: ['member'],
  input: z.strictObject({
    ...OverlayParams,
    expected_digest: z.string().min(1).max(200),
    // Checked by core, which reports every problem with its pointer.
    groups: z.unknown(),
  }),
  output: OverlayViewSchema,
  async handle({ kernel, principal }, input) {
    const key = await overlayKey(kernel, principal, input);
    const validated = validateOverlayDocument(input.groups, key.scope);
    if (!validated.ok) {
      throw new AirlockError(
        'invalid_configuration',
        `the overlay document has ${validated.problems.length} problem(s); nothing was changed`,
        validated.problems.map((p) => ({ ...p, pointer: `/groups${p.pointer}` })),
      );
    }
    return kernel.context.store.transaction((tx) =>
      replaceOverlay(tx, key, {
        expectedDigest: input.expected_digest,
        document: validated.value,
        by: principalName(principal),
      }),
    );
  },
});

/** POST .../overlays/project/{owner_id}/trust */
export const trustOverlayOperation = defineOperation({
  name: 'overlays.trust',
  summary:
    "Trust a project overlay document's exact digest: its groups apply until it changes (409 stale_digest if it already did)",
  method: 'POST',
  path: '/api/v1/workspaces/{workspace_id}/overlays/project/{owner_id}/trust',
  planes: ['member'],
  input: z.strictObject({
    ...WorkspaceParams,
    owner_id: IdSchema,
    digest: z.string().min(1).max(200),
  }),
  output: OverlayViewSchema,
  async handle({ kernel, principal }, input) {
    const key = await overlayKey(kernel, principal, { scope: 'project', owner_id: input.owner_id });
    return kernel.context.store.transaction((tx) =>
      trustOverlay(tx, key, { digest: input.digest, by: principalName(principal) }),
    );
  },
});

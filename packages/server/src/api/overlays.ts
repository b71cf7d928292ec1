import {
  canonicalJson,
  OPERATION_CONTRACTS,
  type OverlayDocument,
  type OverlayScope,
  validateOverlayDocument,
} from '@airlock/core';
import { AirlockError } from '../errors.js';
import type { Kernel } from '../kernel/kernel.js';
import { addsAllowRule, checkAllowWriter } from '../kernel/verbs/allow-writers.js';
import { requireAdmin } from '../kernel/verbs/member-roles.js';
import { recordPolicyChange } from '../kernel/verbs/policy-changes.js';
import {
  listCredentials,
  lockWorkspaceRow,
  type Principal,
  principalName,
} from '../store/accounts.js';
import { findAgentApplication } from '../store/applications.js';
import { conversationExists, lockConversation } from '../store/conversations.js';
import { type OverlayKey, readOverlay, replaceOverlay, trustOverlay } from '../store/overlays.js';
import type { Tx } from '../store/store.js';
import { implement } from './operation.js';
import { assertPolicyTextIsUnicode } from './policy-text.js';

/** A resolved document: its key, and whether it is a revoked member's that an admin manages. */
interface ResolvedOverlay {
  key: OverlayKey;
  /** An admin's hold on a revoked member's user document: it may only remove rules from it. */
  revokedOwner: boolean;
}

/**
 * Whether `ownerId` names a member credential of the workspace that is
 * revoked (or whose application was removed). Its user document stays in
 * force, guardrails included, since revoking a person lifts nothing they
 * forbade; an admin may read it and remove rules from it (see
 * {@link onlyRemovesRules}), so a guardrail nobody can edit any more can be lifted.
 */
async function isRevokedMember(kernel: Kernel, workspaceId: string, ownerId: string) {
  if (!ownerId.startsWith('member:')) return false;
  const id = ownerId.slice('member:'.length);
  const credentials = await listCredentials(kernel.context.store, workspaceId);
  const credential = credentials.find((c) => c.credential_id === id);
  return credential?.kind === 'member' && credential.revoked_at !== null;
}

/**
 * Resolves who owns a document and checks the caller may manage it: a
 * member's own user document (`me`), a revoked member's (an admin only, to
 * remove rules), an agent application or a conversation of the workspace.
 * @throws AirlockError forbidden, agent_application_not_found, conversation_not_found.
 */
async function overlayKey(
  kernel: Kernel,
  principal: Principal,
  input: { scope: OverlayScope; owner_id: string },
): Promise<ResolvedOverlay> {
  const workspaceId = principal.workspace_id;
  const store = kernel.context.store;
  if (input.scope === 'user') {
    const self = principalName(principal);
    if (input.owner_id === 'me' || input.owner_id === self) {
      return { key: { workspaceId, scope: 'user', ownerId: self }, revokedOwner: false };
    }
    const admin = principal.kind === 'member' && principal.role === 'admin';
    if (!admin || !(await isRevokedMember(kernel, workspaceId, input.owner_id))) {
      throw new AirlockError(
        'forbidden',
        'a member manages only its own user overlay (owner "me"); an admin may also remove rules from a revoked member\'s (owner "member:<credential id>")',
      );
    }
    return { key: { workspaceId, scope: 'user', ownerId: input.owner_id }, revokedOwner: true };
  }
  if (input.scope === 'project') {
    const app = await findAgentApplication(store, workspaceId, input.owner_id);
    if (!app) {
      throw new AirlockError(
        'agent_application_not_found',
        `no agent application ${input.owner_id}`,
      );
    }
    return { key: { workspaceId, scope: 'project', ownerId: app.id }, revokedOwner: false };
  }
  if (!(await conversationExists(store, workspaceId, input.owner_id))) {
    throw new AirlockError('conversation_not_found', `no conversation ${input.owner_id}`);
  }
  return {
    key: { workspaceId, scope: 'conversation', ownerId: input.owner_id },
    revokedOwner: false,
  };
}

/**
 * Refuses a revoked member's document that holds a rule the one before did
 * not (each rule counted as often as it stood in its rule set): an admin
 * lifts what a revoked member left, and writes its own rules in its own document.
 * @throws AirlockError forbidden.
 */
function onlyRemovesRules(before: OverlayDocument, after: OverlayDocument): void {
  const left = new Map<string, number>();
  const at = (ruleSet: string, rule: OverlayRule) => `${ruleSet}\u0000${canonicalJson(rule)}`;
  for (const group of before) {
    for (const rule of group.rules) {
      const key = at(group.ruleSetId, rule);
      left.set(key, (left.get(key) ?? 0) + 1);
    }
  }
  for (const group of after) {
    for (const rule of group.rules) {
      const key = at(group.ruleSetId, rule);
      const count = left.get(key) ?? 0;
      if (count === 0) {
        throw new AirlockError(
          'forbidden',
          `a revoked member's user overlay only loses rules: rule set ${group.ruleSetId} holds a rule it did not; nothing was changed`,
        );
      }
      left.set(key, count - 1);
    }
  }
}

type OverlayRule = OverlayDocument[number]['rules'][number];

const LIST_CONDITIONS = ['tools', 'tool_names', 'groups', 'risks', 'targets', 'urls'] as const;
const MAP_CONDITIONS = ['arguments', 'argument_patterns'] as const;
const RULE_KEYS: ReadonlySet<string> = new Set([
  'verdict',
  'reason',
  'guardrail',
  ...LIST_CONDITIONS,
  ...MAP_CONDITIONS,
]);

/**
 * Whether deny or ask rule `wider` holds back every call `rule` does: it states no condition
 * `rule` does not, each list of it holds every entry of `rule`'s, and each argument it names is
 * named alike. Deny and ask count alike here: either leaves the call to the approval policy.
 */
function holdsBack(wider: OverlayRule, rule: OverlayRule): boolean {
  if (wider.verdict === 'allow' || (rule.guardrail === true && wider.guardrail !== true)) {
    return false;
  }
  if (Object.keys(wider).some((key) => !RULE_KEYS.has(key))) return false;
  const lists = LIST_CONDITIONS.every((field) => {
    const entries = wider[field] as readonly string[] | undefined;
    const narrower = rule[field] as readonly string[] | undefined;
    return entries === undefined || narrower?.every((e) => entries.includes(e));
  });
  return (
    lists &&
    MAP_CONDITIONS.every((field) => {
      const named = wider[field] as Record<string, unknown> | undefined;
      const narrower = rule[field] as Record<string, unknown> | undefined;
      if (named === undefined) return true;
      return (
        narrower !== undefined &&
        Object.entries(named).every(
          ([pointer, value]) =>
            Object.hasOwn(narrower, pointer) &&
            canonicalJson(narrower[pointer]) === canonicalJson(value),
        )
      );
    })
  );
}

/** A document's rules of each rule set, in the order the first match reads them. */
function rulesBySet(document: OverlayDocument): Map<string, OverlayRule[]> {
  const bySet = new Map<string, OverlayRule[]>();
  for (const group of document) {
    bySet.set(group.ruleSetId, [...(bySet.get(group.ruleSetId) ?? []), ...group.rules]);
  }
  return bySet;
}

/**
 * Whether a document lifts a deny or ask rule the earlier one had: drops or narrows it, or moves
 * one of its allow rules ahead of it (the first matching rule decides). That widens as a new
 * allow does (an admin's "allow bash" beside "deny rm" grants `rm` once the deny is gone), so the
 * same writers may do it (checkAllowWriter). Each earlier deny or ask must be held back by one
 * in the new document ahead of every allow that came after it.
 */
function liftsRefusingRule(before: OverlayDocument, after: OverlayDocument): boolean {
  const next = rulesBySet(after);
  for (const [ruleSet, earlier] of rulesBySet(before)) {
    const now = next.get(ruleSet) ?? [];
    const firstAt = (rule: OverlayRule) =>
      earlier.findIndex((old) => canonicalJson(old) === canonicalJson(rule));
    for (const [index, rule] of earlier.entries()) {
      if (rule.verdict === 'allow') continue;
      // The first allow now that came after this rule before (a new allow is checked already).
      const allowAt = now.findIndex((n) => n.verdict === 'allow' && firstAt(n) > index);
      const ahead = allowAt === -1 ? now : now.slice(0, allowAt);
      if (!ahead.some((held) => holdsBack(held, rule))) return true;
    }
  }
  return false;
}

/**
 * Takes the workspace's row before a document is read, as an approve that remembers does
 * (approvals.ts): the two take turns. Without it, on PostgreSQL a replace that wrote the
 * document first then waited for the workspace's row to number its event, while the remember
 * holding that row waited on the document: a deadlock, a stall of a second and a retry, or
 * store_unavailable once retries ran out. Taken after a conversation's lock, in the order a
 * new run of the conversation takes the two.
 */
async function lockOverlayWrites(tx: Tx, key: OverlayKey): Promise<void> {
  await lockWorkspaceRow(tx, key.workspaceId);
}

/** GET .../overlays/{scope}/{owner_id} */
export const getOverlay = implement(
  OPERATION_CONTRACTS['overlays.get'],
  async ({ kernel, principal }, input) => {
    const { key } = await overlayKey(kernel, principal, input);
    return readOverlay(kernel.context.store, key);
  },
);

/** PUT .../overlays/{scope}/{owner_id} */
export const replaceOverlayOperation = implement(
  OPERATION_CONTRACTS['overlays.replace'],
  async ({ kernel, principal }, input) => {
    // A project document applies to every run of its application, whoever started it.
    if (input.scope === 'project')
      requireAdmin(principal, 'overlays.replace of a project document');
    const { key, revokedOwner } = await overlayKey(kernel, principal, input);
    assertPolicyTextIsUnicode({ groups: input.groups });
    const validated = validateOverlayDocument(input.groups, key.scope);
    if (!validated.ok) {
      throw new AirlockError(
        'invalid_configuration',
        `the overlay document has ${validated.problems.length} problem(s); nothing was changed`,
        validated.problems.map((p) => ({ ...p, pointer: `/groups${p.pointer}` })),
      );
    }
    // A guardrail binds every run of the workspace; an approver's document holds ordinary rules only.
    if (validated.value.some((group) => group.rules.some((rule) => rule.guardrail === true))) {
      requireAdmin(principal, 'a guardrail rule');
    }
    return kernel.context.store.transaction(async (tx) => {
      // Checked again, locked, in the write's unit: the pruner may have taken the conversation since.
      if (
        key.scope === 'conversation' &&
        !(await lockConversation(tx, key.workspaceId, key.ownerId))
      ) {
        throw new AirlockError('conversation_not_found', `no conversation ${key.ownerId}`);
      }
      await lockOverlayWrites(tx, key);
      // An approver's new allow (or a deny or ask it lifts) must not grant what the approval
      // policy asks named members or several for.
      const before = (await readOverlay(tx, key)).groups;
      if (revokedOwner) onlyRemovesRules(before, validated.value);
      if (addsAllowRule(before, validated.value)) {
        await checkAllowWriter(tx, principal, `an allow rule in a ${key.scope} overlay`);
      } else if (liftsRefusingRule(before, validated.value)) {
        await checkAllowWriter(
          tx,
          principal,
          `lifting a deny or ask rule of a ${key.scope} overlay`,
        );
      }
      const written = await replaceOverlay(tx, key, {
        expectedDigest: input.expected_digest,
        document: validated.value,
        by: principalName(principal),
      });
      recordPolicyChange(tx, {
        workspaceId: key.workspaceId,
        principal: principalName(principal),
        change: {
          change: 'overlay_replaced',
          scope: key.scope,
          owner_id: key.ownerId,
          before_digest: input.expected_digest,
          after_digest: written.digest,
        },
        detail: revokedOwner
          ? `removed rules from the user overlay of revoked member ${key.ownerId}`
          : `replaced the ${key.scope} overlay of ${key.ownerId}`,
      });
      return written;
    });
  },
);

/** POST .../overlays/project/{owner_id}/trust */
export const trustOverlayOperation = implement(
  OPERATION_CONTRACTS['overlays.trust'],
  async ({ kernel, principal }, input) => {
    const { key } = await overlayKey(kernel, principal, {
      scope: 'project',
      owner_id: input.owner_id,
    });
    return kernel.context.store.transaction(async (tx) => {
      await lockOverlayWrites(tx, key);
      const before = await readOverlay(tx, key);
      const trusted = await trustOverlay(tx, key, {
        digest: input.digest,
        by: principalName(principal),
      });
      recordPolicyChange(tx, {
        workspaceId: key.workspaceId,
        principal: principalName(principal),
        change: {
          change: 'overlay_trusted',
          scope: key.scope,
          owner_id: key.ownerId,
          before_digest: before.trusted_digest,
          after_digest: trusted.trusted_digest,
        },
        detail: `trusted the project overlay of ${key.ownerId} at ${input.digest}`,
      });
      return trusted;
    });
  },
);

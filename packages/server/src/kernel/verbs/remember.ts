import {
  canonicalJson,
  type Decision,
  exactCallRule,
  type LayerDecision,
  type LayerName,
  type OverlayDocument,
  type OverlayScope,
  type PermissionRule,
  type Remember,
  type Remembered,
  type RememberRule,
  resolveToolName,
  validateOverlayDocument,
  withRememberedRule,
} from '@airlock/core';
import { AirlockError } from '../../errors.js';
import { type Principal, principalName } from '../../store/accounts.js';
import {
  EMPTY_OVERLAY_DIGEST,
  type OverlayKey,
  type OverlayRecord,
  readOverlay,
  replaceOverlay,
  trustOverlay,
} from '../../store/overlays.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { namesTool } from '../stage/permissions-layer.js';
import { checkAllowWriter } from './allow-writers.js';
import { requireAdmin } from './member-roles.js';
import { recordPolicyChange } from './policy-changes.js';

function layersOf(row: Pick<TaskTable, 'decision'>): LayerDecision[] {
  if (row.decision === null) return [];
  return (JSON.parse(row.decision) as Decision).layers ?? [];
}

function ruleSetLayer(row: Pick<TaskTable, 'decision'>) {
  return layersOf(row).find((layer) => layer.layer === 'rule_set');
}

/** A layer beside the rule set's, whose word no overlay rule changes. */
type OtherLayer = Exclude<LayerName, 'rule_set'>;

/** Each such layer, as a person reads its name. */
const OTHER_LAYER_WORDS: Record<OtherLayer, string> = {
  approval_rules: "the run's declared approval rules (its mode or an ask rule)",
  action_contract: "the action contract's requires_user",
};

/**
 * Why a remembered overlay allow, which joins the rule set's layer only, could not keep the
 * next identical call from parking: another layer asks about it (the strictest layer wins), or
 * the rule set already allowed it and the approval policy parked a member's own grant. Null
 * when the rule set's ask is what parked it.
 */
function parkedOutsideRuleSet(row: Pick<TaskTable, 'decision' | 'key'>): string | null {
  const layers = layersOf(row);
  const asking = layers.find(
    (layer): layer is LayerDecision & { layer: OtherLayer } =>
      layer.layer !== 'rule_set' && layer.verdict === 'ask',
  );
  if (asking !== undefined) {
    return `task ${row.key} was parked by ${OTHER_LAYER_WORDS[asking.layer]}, which no overlay rule lifts; approve it without remember`;
  }
  const ruleSet = layers.find((layer) => layer.layer === 'rule_set');
  if (ruleSet !== undefined && ruleSet.verdict !== 'ask') {
    return `task ${row.key} was already allowed by rule set ${ruleSet.rule?.rule_set?.id ?? 'of its run'}, so a remembered allow would change nothing; approve it without remember`;
  }
  return null;
}

/** The rule set captured on a row when its call was evaluated, or null when none was. */
export function capturedRuleSet(row: Pick<TaskTable, 'decision'>): string | null {
  return ruleSetLayer(row)?.rule?.rule_set?.id ?? null;
}

/**
 * Why a remembered overlay rule could not change the next identical call's
 * outcome: Baseline or a user guardrail parked it, which no overlay lifts,
 * another layer parked it (parkedOutsideRuleSet), or a rule naming the name
 * the model called (one the run's alias renamed) parked it and the rule to
 * remember does not name that name. Null when remembering can take effect.
 */
function rememberWouldNotApply(
  row: Pick<TaskTable, 'decision' | 'key' | 'tool_name' | 'resolved_tool_name'>,
  remembered: RememberRule,
): string | null {
  const rule = ruleSetLayer(row)?.rule;
  if (rule?.baseline_check !== undefined) {
    return `task ${row.key} was parked by Baseline (${rule.baseline_check}), which no overlay rule lifts; approve it without remember`;
  }
  const elsewhere = parkedOutsideRuleSet(row);
  if (elsewhere !== null) return elsewhere;
  if (rule?.text === undefined) return null;
  const decided = JSON.parse(rule.text) as PermissionRule;
  if (rule.scope === 'user' && decided.guardrail === true) {
    return `task ${row.key} was parked by a user guardrail, which no overlay rule lifts; approve it without remember`;
  }
  const resolved = row.resolved_tool_name ?? row.tool_name;
  const called = resolveToolName(row.tool_name);
  const byName = decided.tools !== undefined || decided.tool_names !== undefined;
  if (called === resolved || !byName || namesTool(decided, resolved)) return null;
  if (namesTool({ verdict: 'allow', ...remembered }, called)) return null;
  return `task ${row.key} was parked by a rule naming ${called}, the name the model called, which an allow of ${resolved} does not lift; approve it without remember, or remember a rule naming ${called}`;
}

/** The overlay scopes in the order a call reads them: the first matching rule decides. */
const SCOPES_IN_ORDER: readonly OverlayScope[] = ['conversation', 'project', 'user'];

/**
 * Why an allow remembered into `scope` would be read after the overlay rule
 * that parked the call, so the next identical call parks again: that rule
 * sits in a scope a call reads first, or in the very group of this document
 * the allow is appended to (after it). Null when the allow comes first.
 */
function shadowedByParkingRule(
  row: Pick<TaskTable, 'decision' | 'key'>,
  target: { scope: OverlayScope; document: OverlayDocument; ruleSetId: string },
): string | null {
  const rule = ruleSetLayer(row)?.rule;
  const parkedIn = SCOPES_IN_ORDER.find((scope) => scope === rule?.scope);
  // Parked by the set's own rules or its catch-all: every overlay is read before them.
  if (rule === undefined || rule === null || parkedIn === undefined) return null;
  const { scope, document } = target;
  if (SCOPES_IN_ORDER.indexOf(parkedIn) < SCOPES_IN_ORDER.indexOf(scope)) {
    return `task ${row.key} was parked by an ask rule of the ${parkedIn} overlay, which a call reads before the ${scope} overlay, so a rule remembered there would never lift it; remember at ${parkedIn} scope, or approve it without remember`;
  }
  if (parkedIn !== scope) return null;
  const group = document.findIndex((entry) => entry.ruleSetId === target.ruleSetId);
  const held = group === rule.group ? document[group]?.rules[rule.index ?? -1] : undefined;
  // The rule that parked it still holds that place (the document may have changed since).
  if (held === undefined || rule.text === undefined) return null;
  if (canonicalJson(held) !== canonicalJson(JSON.parse(rule.text))) return null;
  return `task ${row.key} was parked by rule ${rule.index} of group ${group} of this ${scope} overlay; a remembered allow goes after it, so it would never lift it: change that rule, or approve it without remember`;
}

/**
 * Refuses remembering into a project document that holds changes nobody
 * trusted: the document applies only once trusted whole, so the rule would
 * not apply, and trusting it here would trust what nobody reviewed. An
 * absent or empty document is refused nothing (see {@link trustRemembered}).
 * @throws AirlockError remember_unavailable (422).
 */
function checkProjectTrusted(row: Pick<TaskTable, 'key'>, current: OverlayRecord): void {
  if (current.scope !== 'project' || current.active) return;
  if (current.digest === EMPTY_OVERLAY_DIGEST) return;
  throw new AirlockError(
    'remember_unavailable',
    `task ${row.key}: the project overlay of ${current.owner_id} holds changes nobody trusted (digest ${current.digest}), so a rule remembered there would not apply; review and trust it (overlays.trust), then remember again, or remember at conversation or user scope`,
  );
}

/**
 * Trusts a project document the remembered rule made out of an absent or
 * empty one: the admin who remembered wrote all of it, as a trusted
 * document stays trusted after a remembered rule. Without this the rule
 * would sit in a document that never applies.
 */
async function trustRemembered(
  tx: Tx,
  options: { key: OverlayKey; before: OverlayRecord; written: OverlayRecord; by: string },
): Promise<OverlayRecord> {
  const { key, before, written } = options;
  if (key.scope !== 'project' || written.active || before.digest !== EMPTY_OVERLAY_DIGEST) {
    return written;
  }
  return trustOverlay(tx, key, { digest: written.digest, by: options.by });
}

function ownerOf(scope: Remember['scope'], run: RunTable, principal: Principal): string {
  if (scope === 'user') return principalName(principal);
  const owner = scope === 'project' ? run.agent_application_id : run.conversation_id;
  if (owner === null) {
    throw new AirlockError(
      'remember_unavailable',
      `run ${run.id} has no ${scope === 'project' ? 'agent application' : 'conversation'} to remember into`,
    );
  }
  return owner;
}

/**
 * Approve and remember: appends an allow rule to the scope's overlay group
 * for the rule set captured on the row (frozen when the call was evaluated,
 * never the one selected now), in the approval's transaction; returns what
 * it kept, for the approval's event. A trusted
 * project document stays trusted: the approving member wrote the change.
 * A project document absent or empty before becomes trusted with the rule
 * (the admin who remembered wrote all of it); one holding changes nobody
 * trusted is refused.
 * @throws AirlockError remember_unavailable when the row was not evaluated by
 * a rule set, Baseline, a guardrail or another layer parked it, or the rule set
 * already allowed it (a remembered rule would change nothing), an overlay rule
 * read before the remembered one parked it (a scope read first, or earlier in
 * the same group), the project document holds untrusted changes, or the run
 * has no owner of that scope, or the rule is one the overlay would refuse (with
 * its problems); admin_required for project scope asked by an approver,
 * or any scope while the approval policy asks more than one approval by any member
 * (allow-writers.ts).
 */
export async function rememberApproval(
  tx: Tx,
  options: { run: RunTable; row: TaskTable; principal: Principal; remember: Remember },
): Promise<Remembered> {
  const { run, row, principal, remember } = options;
  // A project document binds every run of the application: keeping a grant there governs it.
  if (remember.scope === 'project') requireAdmin(principal, 'remember at project scope');
  await checkAllowWriter(tx, principal, `remember at ${remember.scope} scope`);
  const ruleSetId = capturedRuleSet(row);
  if (ruleSetId === null) {
    throw new AirlockError(
      'remember_unavailable',
      `task ${row.key} was not evaluated by a permission rule set; there is nothing to remember into`,
    );
  }
  const rule =
    remember.rule ??
    exactCallRule(
      row.resolved_tool_name ?? row.tool_name,
      JSON.parse(row.tool_input),
      row.working_directory,
    );
  const inert = rememberWouldNotApply(row, rule);
  if (inert !== null) throw new AirlockError('remember_unavailable', inert);
  const key: OverlayKey = {
    workspaceId: run.workspace_id,
    scope: remember.scope,
    ownerId: ownerOf(remember.scope, run, principal),
  };
  const current = await readOverlay(tx, key);
  checkProjectTrusted(row, current);
  const shadowed = shadowedByParkingRule(row, {
    scope: remember.scope,
    document: current.groups,
    ruleSetId,
  });
  if (shadowed !== null) throw new AirlockError('remember_unavailable', shadowed);
  const next = validateOverlayDocument(
    withRememberedRule(current.groups, ruleSetId, rule),
    remember.scope,
  );
  if (!next.ok) {
    // The approve's own refusal (its contract's code), with every problem of the rule.
    throw new AirlockError(
      'remember_unavailable',
      'the rule to remember is not a valid overlay rule; nothing was changed',
      next.problems,
    );
  }
  const by = principalName(principal);
  const replaced = await replaceOverlay(tx, key, {
    expectedDigest: current.digest,
    document: next.value,
    by,
    keepTrust: true,
  });
  const written = await trustRemembered(tx, { key, before: current, written: replaced, by });
  const saved = { verdict: 'allow', ...rule };
  recordPolicyChange(tx, {
    workspaceId: run.workspace_id,
    principal: by,
    runId: run.id,
    taskKey: row.key,
    change: {
      change: 'rule_remembered',
      scope: remember.scope,
      owner_id: key.ownerId,
      before_digest: current.digest,
      after_digest: written.digest,
      rule: { rule_set: ruleSetId, ...saved },
    },
    detail: `remembered an allow rule for rule set ${ruleSetId} in the ${remember.scope} overlay of ${key.ownerId}`,
  });
  return {
    scope: remember.scope,
    owner_id: key.ownerId,
    rule_set: ruleSetId,
    rule: saved,
    digest: written.digest,
  };
}

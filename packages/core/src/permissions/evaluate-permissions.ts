import type { ApprovalMode } from '../schemas/approval.js';
import { LAYER_VERDICT_STRICTNESS, type LayerRuleRef } from '../schemas/layers.js';
import type {
  OverlayDocument,
  PermissionRule,
  PermissionVerdict,
  ToolManifest,
} from '../schemas/permissions.js';
import { BASELINE_VERSION, baselineFinding } from './baseline.js';
import {
  mayReachGuardedPaths,
  type PermissionCallFacts,
  permissionRuleMatches,
} from './match-rule.js';
import { type FallbackReason, selectRuleSet } from './select-rule-set.js';
import { lazyShellPaths } from './shell-paths.js';
import { type CanonicalTarget, callTargets } from './targets.js';
import { MAX_URL_LENGTH, MAX_URL_TARGETS } from './url-targets.js';
import { callDirectory } from './working-directory-condition.js';

/** Where a deciding permission rule came from. */
export type PermissionScope = 'baseline' | 'rule_set' | 'user' | 'project' | 'conversation';

/** A member's user overlay document, named by its owner. */
export interface OwnedOverlay {
  /** The member principal that keeps the document (`member:<credential id>`). */
  readonly owner: string;
  readonly document: OverlayDocument;
}

/** The overlay documents that apply to a call; a project document only once trusted. */
export interface ActiveOverlays {
  /** The user document whose ordinary rules apply: the one of the member who started the run. */
  readonly user?: OverlayDocument | null | undefined;
  readonly project?: OverlayDocument | null | undefined;
  readonly conversation?: OverlayDocument | null | undefined;
  /**
   * Every user document of the workspace: their guardrails bind every call,
   * whoever started the run and whichever rule set it selected. Absent: the
   * guardrails of `user` alone.
   */
  readonly guardrails?: readonly OwnedOverlay[] | undefined;
}

/** What the permission engine is asked. */
export interface PermissionRequest {
  /** The resolved tool name. */
  readonly toolName: string;
  /** The call's input, already valid against its tool's schema. */
  readonly input: unknown;
  readonly manifest: ToolManifest | undefined;
  readonly projectRoot: string | undefined;
  /** The selected rule set's id. */
  readonly ruleSetId: string;
  readonly customRuleSets: readonly unknown[] | undefined;
  readonly approvalMode: ApprovalMode;
  readonly overlays: ActiveOverlays;
  /**
   * The absolute directory the agent runs the call in (a hooked agent's `cwd`), which its
   * relative paths and shell words are read from; absent, the project root. One outside the
   * project (and not above it) cannot be placed: its relative paths may name anything.
   */
  readonly workingDirectory?: string | undefined;
}

/** What the permission engine decided and which rule decided it. */
export interface PermissionOutcome {
  readonly verdict: PermissionVerdict;
  /** The rule set evaluated (the selected one, even when it fell back): captured for `remember`. */
  readonly ruleSet: { readonly id: string; readonly version: string };
  readonly scope: PermissionScope;
  /** The deciding rule's index in its list; null when a default or a Baseline check decided. */
  readonly index: number | null;
  /** The overlay group's index in its scope document. */
  readonly group: number | undefined;
  /** For a guardrail: the member whose user document holds it. */
  readonly owner?: string | undefined;
  /** The deciding rule, for a person to read. */
  readonly rule: PermissionRule | undefined;
  readonly detail: string | null;
  /** Set when Baseline itself decided (a check, or a set that could not be used). */
  readonly baselineCheck: LayerRuleRef['baseline_check'];
  /** Set when a selected custom set could not be used and Baseline decided alone. */
  readonly fallback: { readonly reason: FallbackReason; readonly detail: string } | null;
  readonly targets: readonly CanonicalTarget[];
}

interface Candidate {
  verdict: PermissionVerdict;
  baselineCheck?: NonNullable<LayerRuleRef['baseline_check']>;
  scope: PermissionScope;
  index: number | null;
  group?: number;
  owner?: string;
  rule?: PermissionRule;
  detail: string | null;
}

function firstMatch(
  rules: readonly PermissionRule[],
  call: PermissionCallFacts,
  where: { scope: PermissionScope; group?: number },
  keep: (rule: PermissionRule) => boolean = () => true,
): Candidate | null {
  for (const [index, rule] of rules.entries()) {
    if (!keep(rule)) continue;
    const matches = permissionRuleMatches(rule, call);
    if (!matches && !mayReachGuardedPaths(rule, call)) continue;
    return {
      verdict: matches ? rule.verdict : 'ask',
      scope: where.scope,
      index,
      ...(where.group === undefined ? {} : { group: where.group }),
      rule,
      detail: matches ? (rule.reason ?? null) : readAboveDetail(rule, call),
    };
  }
  return null;
}

/** Why a read of a directory holding guarded paths asks (see mayReachGuardedPaths). */
function readAboveDetail(rule: PermissionRule, call: PermissionCallFacts): string {
  const guarded = (rule.targets ?? []).join(', ');
  const reason = rule.reason ? ` (${rule.reason})` : '';
  if (rule.urls !== undefined && call.targets.some((target) => target.anyUrl === true)) {
    const urls = rule.urls.join(', ');
    return `the call names more than ${MAX_URL_TARGETS} URLs, or one longer than ${MAX_URL_LENGTH} characters, too many to compare with the URLs a ${rule.verdict} rule guards (${urls})${reason}; a person decides. The same call naming fewer URLs is compared URL by URL`;
  }
  const unplaced = call.targets.find((target) => target.withoutProjectRoot === true);
  if (unplaced !== undefined) {
    // Said so whoever set the profile up can fix it, instead of people deciding every call.
    return `the configuration sets no project_root, so ${unplaced.text.slice(0, 200)} cannot be placed against the paths a ${rule.verdict} rule guards (${guarded})${reason}; a person decides. Set project_root to the project's absolute directory`;
  }
  // Said so the agent can narrow its call instead of waiting on a person.
  return `the call may reach paths a ${rule.verdict} rule guards (${guarded})${reason}: it reads a directory holding them (a search or a git diff, log -p or show given no path reads the whole tree), or its shell command names them; a person decides. The same command limited to paths that hold none of them (rg x src, git diff -- src) is not asked by this rule`;
}

function firstInDocument(
  document: OverlayDocument | null | undefined,
  ruleSetId: string,
  call: PermissionCallFacts,
  options: { scope: PermissionScope; guardrails: boolean },
): Candidate | null {
  for (const [group, entry] of (document ?? []).entries()) {
    // A group binds to exactly one rule set: another set's grants never apply.
    if (entry.ruleSetId !== ruleSetId) continue;
    const found = firstMatch(
      entry.rules,
      call,
      { scope: options.scope, group },
      (rule) => (rule.guardrail === true) === options.guardrails,
    );
    if (found) return found;
  }
  return null;
}

/**
 * The strictest guardrail of the workspace that matches the call (a deny
 * before an ask; the first in document order on a tie). A guardrail binds
 * whatever rule set the run selected: the group holding it only files it.
 */
function bindingGuardrail(overlays: ActiveOverlays, call: PermissionCallFacts): Candidate | null {
  const documents =
    overlays.guardrails ?? (overlays.user ? [{ owner: '', document: overlays.user }] : []);
  let found: Candidate | null = null;
  for (const { owner, document } of documents) {
    for (const [group, entry] of document.entries()) {
      const match = firstMatch(
        entry.rules,
        call,
        { scope: 'user', group },
        (rule) => rule.guardrail === true,
      );
      if (match === null) continue;
      if (owner !== '') match.owner = owner;
      found = found === null ? match : stricter(found, match);
      if (found.verdict === 'deny') return found;
    }
  }
  return found;
}

/**
 * Decides a call by the workspace's guardrails alone: for a run that selected
 * no rule set, whose calls the guardrails bind all the same. Null when none matches.
 */
export function evaluateGuardrails(request: {
  readonly toolName: string;
  readonly input: unknown;
  readonly manifest: ToolManifest | undefined;
  readonly projectRoot: string | undefined;
  readonly guardrails: readonly OwnedOverlay[];
  /** See {@link PermissionRequest.workingDirectory}. */
  readonly workingDirectory?: string | undefined;
}): PermissionOutcome | null {
  const entry = request.manifest?.find((tool) => tool.name === request.toolName);
  const { projectRoot, workingDirectory } = request;
  const targets = callTargets(entry, request.input, projectRoot, workingDirectory);
  const found = bindingGuardrail(
    { guardrails: request.guardrails },
    {
      toolName: request.toolName,
      entry,
      input: request.input,
      targets,
      shellPaths: lazyShellPaths(entry, request.input, projectRoot, workingDirectory),
      directory: callDirectory(workingDirectory, projectRoot),
    },
  );
  if (found === null) return null;
  return outcome(found, { id: 'none', version: 'n/a' }, targets, null);
}

function stricter(current: Candidate, next: Candidate | null): Candidate {
  if (next === null) return current;
  return LAYER_VERDICT_STRICTNESS[next.verdict] > LAYER_VERDICT_STRICTNESS[current.verdict]
    ? next
    : current;
}

function describe(candidate: Candidate, ruleSetId: string): string | null {
  if (candidate.verdict === 'allow') return null;
  if (candidate.detail) return candidate.detail;
  if (candidate.owner !== undefined && candidate.verdict === 'deny') {
    // The model reads a refusal: it learns the rule binds, not which member's credential keeps
    // it (the decision's rule reference names the owner for a person).
    return `denied by a workspace guardrail (rule ${candidate.index} of group ${candidate.group} of an admin's user overlay), which no overlay or rule set lifts`;
  }
  const where =
    candidate.scope === 'rule_set'
      ? `rule ${candidate.index} of rule set ${ruleSetId}`
      : candidate.owner !== undefined
        ? `guardrail ${candidate.index} (group ${candidate.group}) of ${candidate.owner}'s user overlay`
        : `${candidate.scope} overlay rule ${candidate.index} (group ${candidate.group}) for rule set ${ruleSetId}`;
  return candidate.verdict === 'deny' ? `denied by ${where}` : `${where} asks a person`;
}

/**
 * Decides a call under spec 003: Baseline composed with the selected rule set
 * and the overlays bound to it. The first matching rule decides, in this
 * order: conversation overlay, trusted project overlay, ordinary user rules,
 * the set's own rules (a call no rule matches asks a person). User guardrails
 * and Baseline then bind over that: the strictest of the three wins, so
 * nothing overrides them. A selected custom set that is missing, malformed,
 * disabled or incompatible falls back to Baseline alone, without overlays.
 */
export function evaluatePermissions(request: PermissionRequest): PermissionOutcome {
  const entry = request.manifest?.find((tool) => tool.name === request.toolName);
  const { projectRoot, workingDirectory } = request;
  const targets = callTargets(entry, request.input, projectRoot, workingDirectory);
  const call: PermissionCallFacts = {
    toolName: request.toolName,
    entry,
    input: request.input,
    targets,
    shellPaths: lazyShellPaths(entry, request.input, projectRoot, workingDirectory),
    directory: callDirectory(workingDirectory, projectRoot),
  };
  const finding = baselineFinding(call, { hasManifest: request.manifest !== undefined });
  const baseline: Candidate | null = finding
    ? {
        verdict: finding.verdict,
        scope: 'baseline',
        index: null,
        detail: finding.detail,
        baselineCheck: finding.check,
      }
    : null;
  const selection = selectRuleSet({
    id: request.ruleSetId,
    customRuleSets: request.customRuleSets,
    approvalMode: request.approvalMode,
  });
  if (!selection.ok) {
    // Baseline alone, without overlays; a guardrail still binds (nothing escapes one).
    const guardrail = bindingGuardrail(request.overlays, call);
    let decided: Candidate = baseline ??
      guardrail ?? {
        verdict: 'ask' as const,
        scope: 'baseline' as const,
        index: null,
        detail: `Baseline asks a person: ${selection.detail}`,
        baselineCheck: 'rule_set_unavailable' as const,
      };
    decided = stricter(decided, guardrail);
    return outcome(decided, { id: request.ruleSetId, version: BASELINE_VERSION }, targets, {
      reason: selection.reason,
      detail: selection.detail,
    });
  }
  const set = selection.set;
  const { overlays } = request;
  const chain = firstInDocument(overlays.conversation, set.id, call, {
    scope: 'conversation',
    guardrails: false,
  }) ??
    firstInDocument(overlays.project, set.id, call, { scope: 'project', guardrails: false }) ??
    firstInDocument(overlays.user, set.id, call, { scope: 'user', guardrails: false }) ??
    firstMatch(set.rules, call, { scope: 'rule_set' }) ?? {
      verdict: 'ask' as const,
      scope: 'baseline' as const,
      index: null,
      detail: `no rule of rule set ${set.id} decides ${request.toolName}`,
    };
  const guardrail = bindingGuardrail(overlays, call);
  // Baseline and guardrails come first so that they keep a tie.
  let decided = baseline ?? guardrail ?? chain;
  decided = stricter(decided, guardrail);
  decided = stricter(decided, chain);
  return outcome(decided, { id: set.id, version: set.version }, targets, null);
}

function outcome(
  decided: Candidate,
  ruleSet: { id: string; version: string },
  targets: readonly CanonicalTarget[],
  fallback: PermissionOutcome['fallback'],
): PermissionOutcome {
  return {
    verdict: decided.verdict,
    ruleSet,
    scope: decided.scope,
    index: decided.index,
    group: decided.group,
    ...(decided.owner === undefined ? {} : { owner: decided.owner }),
    rule: decided.rule,
    detail: describe(decided, ruleSet.id),
    baselineCheck: decided.baselineCheck,
    fallback,
    targets,
  };
}

import type { ApprovalMode } from '../schemas/approval.js';

/** Strictness of each mode: a request may only move up this scale. */
export const MODE_STRICTNESS: Readonly<Record<ApprovalMode, number>> = Object.freeze({
  bypass: 0,
  ask: 1,
  rules: 2,
});

/**
 * A mode's place on the strictness scale, or null for a value that is not one of the three:
 * an own key only, so `toString` or `constructor` (the scale's prototype) is no mode.
 */
function strictnessOf(mode: unknown): number | null {
  return typeof mode === 'string' && Object.hasOwn(MODE_STRICTNESS, mode)
    ? MODE_STRICTNESS[mode as ApprovalMode]
    : null;
}

/** What the profile allows: its mode and, when declared, its tool names. */
export interface TighteningBase {
  readonly approval_mode: ApprovalMode;
  readonly tool_names?: readonly string[] | undefined;
}

/** What one input asks for: a stricter mode and/or fewer tools. */
export interface TighteningRequest {
  readonly approval_mode?: ApprovalMode | undefined;
  readonly tool_names?: readonly string[] | undefined;
}

/** The refusal of a request that would widen the profile, naming what widened. */
export interface TighteningWidens {
  readonly code: 'tightening_widens';
  readonly widened: readonly ('approval_mode' | 'tool_names')[];
  readonly detail: string;
}

/** The effective settings for one input, or why the request was refused. */
export type TighteningResult =
  | { readonly ok: true; readonly value: { approval_mode: ApprovalMode; tool_names?: string[] } }
  | { readonly ok: false; readonly error: TighteningWidens };

/**
 * Narrows a profile's mode and tool names for one request. A less strict
 * mode or a tool the profile does not declare is refused, never clamped.
 */
export function tighten(profile: TighteningBase, request: TighteningRequest): TighteningResult {
  const widened: ('approval_mode' | 'tool_names')[] = [];
  const details: string[] = [];
  const mode = request.approval_mode ?? profile.approval_mode;
  const requested = strictnessOf(mode);
  if (requested === null || requested < (strictnessOf(profile.approval_mode) ?? 0)) {
    widened.push('approval_mode');
    details.push(
      `approval_mode ${mode} is less strict than the profile's ${profile.approval_mode}`,
    );
  }
  if (request.tool_names && profile.tool_names) {
    const declared = new Set(profile.tool_names);
    const extra = request.tool_names.filter((name) => !declared.has(name));
    if (extra.length > 0) {
      widened.push('tool_names');
      details.push(`tool_names adds ${extra.join(', ')}, which the profile does not declare`);
    }
  }
  if (widened.length > 0) {
    return { ok: false, error: { code: 'tightening_widens', widened, detail: details.join('; ') } };
  }
  const toolNames = request.tool_names ?? profile.tool_names;
  return {
    ok: true,
    value: toolNames
      ? { approval_mode: mode, tool_names: [...toolNames] }
      : { approval_mode: mode },
  };
}

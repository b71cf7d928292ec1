import { MUTATION_TRAITS } from '../schemas/permissions.js';
import type { PermissionCallFacts } from './match-rule.js';

/** What Baseline says about a call: a verdict with its reason and the check that gave it. */
export interface BaselineFinding {
  readonly verdict: 'ask' | 'deny';
  readonly check: 'unavailable_tool' | 'undeclared_tool' | 'mutation_outside_project';
  readonly detail: string;
}

/** Baseline's own version, recorded when it decides. */
export const BASELINE_VERSION = '1';

/**
 * Baseline: the checks that compose with every selected rule set and that no
 * overlay can lift (the stricter of Baseline and the set wins). A tool the
 * manifest marks unavailable is refused; a tool it does not declare, and a
 * mutation of a path outside the project root, ask a person. Null when
 * Baseline has nothing to say.
 */
export function baselineFinding(
  call: PermissionCallFacts,
  options: { hasManifest: boolean },
): BaselineFinding | null {
  if (call.entry?.availability === 'unavailable') {
    return {
      verdict: 'deny',
      check: 'unavailable_tool',
      detail: `the tool ${call.toolName} is unavailable`,
    };
  }
  if (call.entry === undefined && options.hasManifest) {
    return {
      verdict: 'ask',
      check: 'undeclared_tool',
      detail: `the tool manifest does not declare ${call.toolName}`,
    };
  }
  const mutates = call.entry?.risk_traits.some((trait) => MUTATION_TRAITS.includes(trait));
  const outside = call.targets.find((target) => target.kind === 'path' && !target.rooted);
  if (mutates && outside) {
    return {
      verdict: 'ask',
      check: 'mutation_outside_project',
      detail: `${call.toolName} would change ${outside.text}, outside the project root`,
    };
  }
  return null;
}

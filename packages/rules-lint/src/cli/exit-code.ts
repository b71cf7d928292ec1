import { countBySeverity, type Finding } from '../findings.js';
import { EXIT } from './cli-io.js';

/** How strict `check` is about warnings (`--max-warnings`, `--error-on-warnings`). */
export interface WarningPolicy {
  /** Exit 1 when there are more warnings than this. */
  readonly maxWarnings: number | undefined;
  /** Exit 1 on any warning. */
  readonly errorOnWarnings: boolean;
}

/**
 * The exit code of a lint run: 2 when a file could not be read, else 1 when
 * a finding is an error or the warnings break the policy, else 0.
 */
export function lintExitCode(
  findings: readonly Finding[],
  failed: boolean,
  policy: WarningPolicy,
): number {
  if (failed) return EXIT.usage;
  const counts = countBySeverity(findings);
  if (counts.error > 0) return EXIT.findings;
  if (policy.errorOnWarnings && counts.warning > 0) return EXIT.findings;
  if (policy.maxWarnings !== undefined && counts.warning > policy.maxWarnings) return EXIT.findings;
  return EXIT.clean;
}

/** A summary line for stderr when warnings alone fail the run, so the exit 1 is explained. */
export function warningPolicyNote(
  findings: readonly Finding[],
  policy: WarningPolicy,
): string | undefined {
  const counts = countBySeverity(findings);
  if (counts.error > 0 || counts.warning === 0) return undefined;
  if (policy.errorOnWarnings)
    return `rules-lint: ${counts.warning} warning(s) and --error-on-warnings\n`;
  if (policy.maxWarnings !== undefined && counts.warning > policy.maxWarnings)
    return `rules-lint: ${counts.warning} warning(s), more than --max-warnings ${policy.maxWarnings}\n`;
  return undefined;
}

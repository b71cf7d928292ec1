/** How much a finding matters: only `error` makes `check` exit 1. */
export type Severity = 'error' | 'warning' | 'info';

/** Where a finding comes from: the kernel's validator, a lint rule, an example, or a suppression comment. */
export type FindingSource = 'declaration' | 'lint' | 'example' | 'suppression';

/** A span of the source: offsets for editors, 1-based lines and UTF-16 columns for people. */
export interface SourceLocation {
  readonly offset: number;
  readonly length: number;
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
}

/** One edit a fix makes, as data: set the value at a pointer, or remove it. */
export type FixOperation =
  | { readonly op: 'set'; readonly pointer: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly pointer: string };

/**
 * A fix a finding offers. `safe` keeps every decision the kernel makes
 * identical; `unsafe` changes what some call gets, so a person should read it.
 */
export interface Fix {
  readonly title: string;
  readonly kind: 'safe' | 'unsafe';
  readonly operations: readonly FixOperation[];
}

/** One problem in a rule file, as data. */
export interface Finding {
  /** A declaration problem code (`unknown_key`) or a lint rule id (`shadowed-allow`). */
  readonly code: string;
  readonly source: FindingSource;
  readonly severity: Severity;
  readonly message: string;
  /** JSON pointer to the culprit ('' = the whole document). */
  readonly pointer: string;
  readonly location: SourceLocation;
  readonly fix?: Fix;
  /** Stable identity across edits elsewhere in the file (see `withFingerprints`). */
  readonly fingerprint?: string;
}

const SEVERITY_RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** Orders findings by position, then severity, then code, so every output is stable. */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    a.location.offset - b.location.offset ||
    SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
    (a.code < b.code ? -1 : a.code > b.code ? 1 : 0) ||
    (a.message < b.message ? -1 : a.message > b.message ? 1 : 0)
  );
}

/** Counts findings by severity. */
export function countBySeverity(findings: readonly Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const finding of findings) counts[finding.severity] += 1;
  return counts;
}

import type { Finding, SourceLocation } from '../findings.js';
import { countBySeverity } from '../findings.js';

/** What one file gave: findings, or the one-line reason it could not be linted. */
export interface FileReport {
  readonly file: string;
  readonly findings: readonly Finding[];
  /** Set when the file could not be read or parsed (then `findings` is empty). */
  readonly failure?: { readonly message: string; readonly location?: SourceLocation };
}

/** The stable JSON shape of one finding (snake_case, positions 1-based). */
export function findingJson(finding: Finding): Record<string, unknown> {
  return {
    code: finding.code,
    source: finding.source,
    severity: finding.severity,
    message: finding.message,
    pointer: finding.pointer,
    line: finding.location.line,
    column: finding.location.column,
    end_line: finding.location.endLine,
    end_column: finding.location.endColumn,
    ...(finding.fix ? { fix: finding.fix } : {}),
  };
}

/**
 * `--format json`: one object with every file's findings and a summary. The
 * shape is stable for tools: keys in a fixed order, findings sorted by position.
 */
export function renderJson(reports: readonly FileReport[]): string {
  const all = reports.flatMap((report) => report.findings);
  const counts = countBySeverity(all);
  const output = {
    version: 1,
    files: reports.map((report) => ({
      file: report.file,
      ...(report.failure
        ? {
            failure: report.failure.message,
            ...(report.failure.location
              ? { line: report.failure.location.line, column: report.failure.location.column }
              : {}),
          }
        : {}),
      findings: report.findings.map(findingJson),
    })),
    summary: { errors: counts.error, warnings: counts.warning, infos: counts.info },
  };
  return `${JSON.stringify(output, null, 2)}\n`;
}

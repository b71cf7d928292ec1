import type { FileReport } from './json.js';
import { xmlEscape } from './xml.js';

/**
 * `--format checkstyle`: Checkstyle XML, one `<file>` per file and one
 * `<error>` per finding (severity error, warning or info; source
 * `rules-lint.CODE`). An unreadable file is one error where reading stopped
 * (line 1 when there is no place, such as a missing file).
 */
export function renderCheckstyle(reports: readonly FileReport[]): string {
  const files = reports.map((report) => {
    const errors = report.failure
      ? [
          `    <error line="${report.failure.location?.line ?? 1}" column="${report.failure.location?.column ?? 1}" severity="error" message="${xmlEscape(report.failure.message)}" source="rules-lint"/>`,
        ]
      : report.findings.map(
          (finding) =>
            `    <error line="${finding.location.line}" column="${finding.location.column}" severity="${finding.severity}" message="${xmlEscape(finding.message)}" source="rules-lint.${xmlEscape(finding.code)}"/>`,
        );
    return errors.length > 0
      ? `  <file name="${xmlEscape(report.file)}">\n${errors.join('\n')}\n  </file>`
      : `  <file name="${xmlEscape(report.file)}"/>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<checkstyle version="4.3">\n${files.join('\n')}\n</checkstyle>\n`;
}

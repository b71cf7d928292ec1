import { countBySeverity } from '../findings.js';
import type { FileReport } from './json.js';
import { xmlEscape } from './xml.js';

/**
 * `--format junit`: JUnit XML, one test suite per file. Each error or
 * warning is a failing test case named `CODE at LINE:COLUMN`; info findings
 * are passing cases; a file without findings is one passing case; an
 * unreadable file is one case with an `<error>`.
 */
export function renderJunit(reports: readonly FileReport[]): string {
  const suites = reports.map((report) => {
    const file = xmlEscape(report.file);
    if (report.failure) {
      return `  <testsuite name="${file}" tests="1" failures="0" errors="1">\n    <testcase classname="rules-lint" name="${file}">\n      <error message="${xmlEscape(report.failure.message)}"/>\n    </testcase>\n  </testsuite>`;
    }
    const counts = countBySeverity(report.findings);
    const cases = report.findings.map((finding) => {
      const name = xmlEscape(
        `${finding.code} at ${finding.location.line}:${finding.location.column}`,
      );
      const open = `    <testcase classname="rules-lint.${xmlEscape(finding.code)}" name="${name}" file="${file}">`;
      if (finding.severity === 'info')
        return `${open}\n      <system-out>${xmlEscape(finding.message)}</system-out>\n    </testcase>`;
      return `${open}\n      <failure type="${finding.severity}" message="${xmlEscape(finding.message)}">${xmlEscape(`${report.file}:${finding.location.line}:${finding.location.column} ${finding.pointer}`)}</failure>\n    </testcase>`;
    });
    if (cases.length === 0)
      cases.push(`    <testcase classname="rules-lint" name="${file}" file="${file}"/>`);
    return `  <testsuite name="${file}" tests="${cases.length}" failures="${counts.error + counts.warning}" errors="0">\n${cases.join('\n')}\n  </testsuite>`;
  });
  const all = reports.flatMap((report) => report.findings);
  const counts = countBySeverity(all);
  const tests = reports.reduce(
    (sum, report) => sum + Math.max(1, report.failure ? 1 : report.findings.length),
    0,
  );
  const errors = reports.filter((report) => report.failure).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="rules-lint" tests="${tests}" failures="${counts.error + counts.warning}" errors="${errors}">\n${suites.join('\n')}\n</testsuites>\n`;
}

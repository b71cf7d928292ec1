import type { Severity } from '../findings.js';
import type { FileReport } from './json.js';
import { escapeForTerminal } from './terminal-text.js';

const COMMAND: Record<Severity, 'error' | 'warning' | 'notice'> = {
  error: 'error',
  warning: 'warning',
  info: 'notice',
};

// Control characters but CR and LF (which the workflow command's own escapes carry): a terminal
// escape from a rule file would otherwise reach the Actions log raw.
const CONTROL_BUT_LINE_BREAKS =
  /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Escapes a workflow command's message. */
function escapeData(text: string): string {
  return escapeForTerminal(text.replaceAll('%', '%25'), CONTROL_BUT_LINE_BREAKS)
    .replaceAll('\r', '%0D')
    .replaceAll('\n', '%0A');
}

/** Escapes a workflow command's property value. */
function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');
}

/**
 * `--format github`: one GitHub Actions workflow command per finding
 * (`::error file=F,line=L,col=C,endLine=..,endColumn=..,title=CODE::MESSAGE`;
 * info is a notice), so findings show as annotations on the pull request.
 * An unreadable file is an error annotation on the file (on its line and
 * column when the failure has one, such as text that is not JSON).
 */
export function renderGithub(reports: readonly FileReport[]): string {
  const lines: string[] = [];
  for (const report of reports) {
    if (report.failure) {
      // Text that is not JSON has a place: annotate that line, not only the file.
      const at = report.failure.location;
      const place = at ? `,line=${at.line},col=${at.column}` : '';
      lines.push(
        `::error file=${escapeProperty(report.file)}${place},title=rules-lint::${escapeData(report.failure.message)}`,
      );
      continue;
    }
    for (const finding of report.findings) {
      const { line, column, endLine, endColumn } = finding.location;
      const properties = [
        `file=${escapeProperty(report.file)}`,
        `line=${line}`,
        `col=${column}`,
        `endLine=${endLine}`,
        // GitHub takes an end column only on a one-line span.
        ...(endLine === line ? [`endColumn=${endColumn}`] : []),
        `title=${escapeProperty(`rules-lint ${finding.code}`)}`,
      ];
      lines.push(
        `::${COMMAND[finding.severity]} ${properties.join(',')}::${escapeData(finding.message)}`,
      );
    }
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

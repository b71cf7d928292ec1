import type { Severity } from '../findings.js';
import type { FileReport } from './json.js';

const COMMAND: Record<Severity, 'error' | 'warning' | 'notice'> = {
  error: 'error',
  warning: 'warning',
  info: 'notice',
};

/** Escapes a workflow command's message. */
function escapeData(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

/** Escapes a workflow command's property value. */
function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');
}

/**
 * `--format github`: one GitHub Actions workflow command per finding
 * (`::error file=F,line=L,col=C,endLine=..,endColumn=..,title=CODE::MESSAGE`;
 * info is a notice), so findings show as annotations on the pull request.
 * An unreadable file is an error annotation on the file.
 */
export function renderGithub(reports: readonly FileReport[]): string {
  const lines: string[] = [];
  for (const report of reports) {
    if (report.failure) {
      lines.push(
        `::error file=${escapeProperty(report.file)},title=rules-lint::${escapeData(report.failure.message)}`,
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

import { countBySeverity, type Finding } from '../findings.js';
import type { LineIndex } from '../source/line-index.js';
import type { FileReport } from './json.js';
import { escapeForTerminal, sourceLineForTerminal } from './terminal-text.js';

/** A file's report with the line index to quote source lines. */
export interface PrettyFileReport extends FileReport {
  readonly lines?: LineIndex;
}

/**
 * `--format pretty`: each finding as `file:line:column: severity[code]:
 * message`, the source line with a caret under the span, and the fix when
 * there is one, like a compiler; then a one-line summary. Control
 * characters from the file are printed escaped. Files that could not be
 * read are left to stderr and only counted.
 */
export function renderPretty(reports: readonly PrettyFileReport[]): string {
  if (reports.length > 0 && reports.every((report) => report.failure)) return '';
  const out: string[] = [];
  for (const report of reports) {
    // A file that could not be read was already reported on stderr; only the summary counts it.
    if (report.failure) continue;
    for (const finding of report.findings)
      out.push(...renderFinding(report.file, finding, report.lines));
  }
  out.push(summaryLine(reports));
  return `${out.join('\n')}\n`;
}

function renderFinding(file: string, finding: Finding, lines: LineIndex | undefined): string[] {
  const { line, column } = finding.location;
  // Messages quote rule text: no escape sequence or line break from the file reaches the terminal raw.
  const out = [
    `${escapeForTerminal(file)}:${line}:${column}: ${finding.severity}[${finding.code}]: ${escapeForTerminal(finding.message)}`,
  ];
  if (lines) {
    const text = lines.lineText(line);
    const gutter = String(line).length;
    const end = finding.location.endLine === line ? finding.location.endColumn : text.length + 1;
    const width = Math.max(1, Math.min(end, text.length + 1) - column);
    // Keep tabs from the source line so the caret lines up in any terminal.
    const lead = text.slice(0, column - 1).replace(/[^\t]/g, ' ');
    out.push(
      `${' '.repeat(gutter)} |`,
      `${line} | ${sourceLineForTerminal(text)}`,
      `${' '.repeat(gutter)} | ${lead}^${'~'.repeat(width - 1)}`,
    );
  }
  if (finding.fix)
    out.push(`  = fix (${finding.fix.kind}): ${escapeForTerminal(finding.fix.title)}`);
  return out;
}

function summaryLine(reports: readonly FileReport[]): string {
  const counts = countBySeverity(reports.flatMap((report) => report.findings));
  const failed = reports.filter((report) => report.failure).length;
  const files = `${reports.length} file${reports.length === 1 ? '' : 's'}`;
  if (counts.error + counts.warning + counts.info + failed === 0) return `no problems in ${files}`;
  const parts = [
    plural(counts.error, 'error'),
    plural(counts.warning, 'warning'),
    plural(counts.info, 'info'),
  ];
  if (failed > 0) parts.push(`${failed} unreadable`);
  return `${parts.join(', ')} in ${files}`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 || word === 'info' ? '' : 's'}`;
}

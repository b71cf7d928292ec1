import { type Diagnostic, DiagnosticSeverity, type Range } from 'vscode-languageserver/node.js';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { docsUrlFor } from '../docs/links.js';
import type { Finding, Severity } from '../findings.js';
import type { AnalysisOutcome } from './analyse-text.js';

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
};

/** The one diagnostic shown when the file's config cannot be used (`check` exits 2 on it). */
export function configProblemDiagnostic(message: string): Diagnostic {
  return {
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    severity: DiagnosticSeverity.Error,
    code: 'config_invalid',
    codeDescription: { href: docsUrlFor('config_invalid') },
    source: 'rules-lint',
    message: `rules-lint config: ${message}`,
  };
}

/** The one diagnostic shown for a document over the size limit (`check` exits 2 on such a file). */
export function sizeProblemDiagnostic(message: string): Diagnostic {
  return {
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    severity: DiagnosticSeverity.Error,
    code: 'file_too_large',
    codeDescription: { href: docsUrlFor('file_too_large') },
    source: 'rules-lint',
    message,
  };
}

/** The editor range of an offset span. */
export function rangeOf(document: TextDocument, offset: number, length: number): Range {
  return { start: document.positionAt(offset), end: document.positionAt(offset + length) };
}

/** One finding as an LSP diagnostic (same code, severity and message as `check`). */
export function findingDiagnostic(document: TextDocument, finding: Finding): Diagnostic {
  return {
    range: rangeOf(document, finding.location.offset, finding.location.length),
    severity: SEVERITY[finding.severity],
    code: finding.code,
    codeDescription: { href: docsUrlFor(finding.code) },
    source: 'rules-lint',
    message: finding.message,
    data: { pointer: finding.pointer },
  };
}

/** Every diagnostic of a lint outcome; a text that is not JSON gives one error diagnostic. */
export function outcomeDiagnostics(document: TextDocument, outcome: AnalysisOutcome): Diagnostic[] {
  if (!outcome.ok) {
    return [
      {
        range: rangeOf(document, outcome.location.offset, outcome.location.length),
        severity: DiagnosticSeverity.Error,
        code: 'invalid_json',
        codeDescription: { href: docsUrlFor('invalid_json') },
        source: 'rules-lint',
        message: outcome.message,
      },
    ];
  }
  return outcome.findings.map((finding) => findingDiagnostic(document, finding));
}

import { type CodeAction, CodeActionKind, type Range } from 'vscode-languageserver/node.js';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { fixEdits } from '../fixes/fix-edits.js';
import { parseDocument, type SourceDocument } from '../source/document.js';
import type { AnalysisOutcome } from './analyse-text.js';
import { findingDiagnostic, rangeOf } from './diagnostics.js';
import { documentFileName, lintedText } from './document-lint.js';

function overlaps(a: Range, b: Range): boolean {
  const before = (x: Range['start'], y: Range['start']) =>
    x.line < y.line || (x.line === y.line && x.character < y.character);
  return !before(a.end, b.start) && !before(b.end, a.start);
}

/**
 * Quick fixes for the findings that carry a fix and touch `range`: each
 * applies the fix's edits to the document; safe fixes are preferred.
 */
export function quickFixes(
  document: TextDocument,
  outcome: AnalysisOutcome,
  range: Range,
): CodeAction[] {
  if (!outcome.ok) return [];
  const actions: CodeAction[] = [];
  // The analysis ran on another thread: the text is parsed here only when a fix is wanted.
  let parsed: SourceDocument | undefined;
  const source = () => {
    if (parsed) return parsed;
    const result = parseDocument(documentFileName(document.uri), lintedText(document));
    parsed = result.ok ? result.document : undefined;
    return parsed;
  };
  for (const finding of outcome.findings) {
    if (!finding.fix) continue;
    const diagnostic = findingDiagnostic(document, finding);
    if (!overlaps(diagnostic.range, range)) continue;
    const parsedText = source();
    if (!parsedText) continue;
    const edits = fixEdits(parsedText.text, parsedText.root, finding.fix).map((edit) => ({
      range: rangeOf(document, edit.offset, edit.length),
      newText: edit.content,
    }));
    if (edits.length === 0) continue;
    actions.push({
      title: `${finding.fix.title} (${finding.code})`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [diagnostic],
      isPreferred: finding.fix.kind === 'safe',
      edit: { changes: { [document.uri]: edits } },
    });
  }
  return actions;
}

import { type CodeAction, CodeActionKind, type Range } from 'vscode-languageserver/node.js';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Finding, Fix } from '../findings.js';
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
 * A fix only an editor can offer, from what it knows of the file: for a
 * profile with target rules and no `project_root`, setting it to the
 * workspace folder holding the file (where a hooked agent usually runs).
 * Unsafe: the person reads the directory before applying it.
 */
function editorFix(finding: Finding, workspaceFolder: string | undefined): Fix | undefined {
  if (finding.code !== 'targets-without-project-root' || workspaceFolder === undefined)
    return undefined;
  if (!workspaceFolder.startsWith('/')) return undefined;
  return {
    title: `Set project_root to the workspace folder "${workspaceFolder}"`,
    kind: 'unsafe',
    operations: [{ op: 'set', pointer: '/project_root', value: workspaceFolder }],
  };
}

/**
 * Quick fixes for the findings that carry a fix and touch `range`: each
 * applies the fix's edits to the document; safe fixes are preferred.
 */
export function quickFixes(
  document: TextDocument,
  outcome: AnalysisOutcome,
  range: Range,
  workspaceFolder?: string,
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
    const fix = finding.fix ?? editorFix(finding, workspaceFolder);
    if (!fix) continue;
    const diagnostic = findingDiagnostic(document, finding);
    if (!overlaps(diagnostic.range, range)) continue;
    const parsedText = source();
    if (!parsedText) continue;
    const edits = fixEdits(parsedText.text, parsedText.root, fix).map((edit) => ({
      range: rangeOf(document, edit.offset, edit.length),
      newText: edit.content,
    }));
    if (edits.length === 0) continue;
    actions.push({
      title: `${fix.title} (${finding.code})`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [diagnostic],
      isPreferred: fix.kind === 'safe',
      edit: { changes: { [document.uri]: edits } },
    });
  }
  return actions;
}

import type { Finding, Fix } from '../findings.js';
import { parseDocument, type SourceDocument } from '../source/document.js';
import { applyEdits, fixEdits, type TextEdit } from './fix-edits.js';

/** Which fixes `--fix` applies: safe ones only, or (`--fix-unsafe`) unsafe ones too. */
export type FixLevel = 'safe' | 'unsafe';

/** What fixing a document gave: its final text and findings, and how many fixes went in. */
export interface FixedDocument {
  readonly document: SourceDocument;
  readonly findings: Finding[];
  readonly applied: number;
}

/** Most lint-and-fix rounds: fixes that touch the same text wait for the next round. */
const MAX_ROUNDS = 10;

/**
 * Applies the fixes the findings offer (the same edits the language server
 * offers), round after round until none is left or `MAX_ROUNDS` passed:
 * each round lints, applies every fix whose edits do not overlap an earlier
 * one's, and parses the result. So running it again changes nothing.
 */
export function fixDocument(
  document: SourceDocument,
  lint: (document: SourceDocument) => Finding[],
  level: FixLevel,
): FixedDocument {
  let current = document;
  let findings = lint(current);
  let applied = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const fixes = findings
      .map((finding) => finding.fix)
      .filter(
        (fix): fix is Fix => fix !== undefined && (fix.kind === 'safe' || level === 'unsafe'),
      );
    const chosen: TextEdit[] = [];
    let count = 0;
    for (const fix of fixes) {
      const edits = fixEdits(current.text, current.root, fix);
      if (edits.length === 0 || edits.some((edit) => chosen.some((other) => overlap(edit, other))))
        continue;
      chosen.push(...edits);
      count += 1;
    }
    if (count === 0) break;
    const parsed = parseDocument(current.fileName, applyEdits(current.text, chosen));
    // A fix never breaks the JSON; if one did, keep the text as it was rather than write it.
    if (!parsed.ok) break;
    current = parsed.document;
    applied += count;
    findings = lint(current);
  }
  return { document: current, findings, applied };
}

function overlap(a: TextEdit, b: TextEdit): boolean {
  return a.offset < b.offset + b.length && b.offset < a.offset + a.length
    ? true
    : a.offset === b.offset; // two edits at one place would interleave
}

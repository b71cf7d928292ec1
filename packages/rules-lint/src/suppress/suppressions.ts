import { createScanner } from 'jsonc-parser';
import { EXTRA_FINDING_CODES } from '../analysis/incomplete.js';
import type { Finding } from '../findings.js';
import { lintRuleById } from '../rules/catalog.js';

function isFindingCode(name: string): boolean {
  return lintRuleById(name) !== undefined || EXTRA_FINDING_CODES.includes(name);
}

import { allowsComments, type SourceDocument, spanLocation } from '../source/document.js';

// jsonc-parser's SyntaxKind is an ambient const enum, which isolated modules cannot read.
const LINE_COMMENT = 12;
const BLOCK_COMMENT = 13;
const END_OF_FILE = 17;

/** The directive word that starts a suppression comment. */
export const DIRECTIVE = 'rules-lint-disable-next-line';

/** The code of the finding an unused or malformed suppression gets. */
export const UNUSED_SUPPRESSION = 'unused-suppression';

/** One `// rules-lint-disable-next-line ID[, ID] -- reason` comment. */
interface Directive {
  readonly offset: number;
  readonly length: number;
  /** The 1-based line whose findings it silences. */
  readonly targetLine: number;
  /** Lint rule ids it names. */
  readonly ids: readonly string[];
  /** Names that are not lint rules (reported, never silencing anything). */
  readonly unknown: readonly string[];
}

/** Reads the suppression comments of a `.jsonc` document (plain JSON has no comments). */
function readDirectives(document: SourceDocument): Directive[] {
  if (!allowsComments(document.fileName)) return [];
  const directives: Directive[] = [];
  const scanner = createScanner(document.text, false);
  for (let kind: number = scanner.scan(); kind !== END_OF_FILE; kind = scanner.scan()) {
    if (kind !== LINE_COMMENT && kind !== BLOCK_COMMENT) continue;
    const raw = document.text.slice(
      scanner.getTokenOffset(),
      scanner.getTokenOffset() + scanner.getTokenLength(),
    );
    const body = (kind === LINE_COMMENT ? raw.slice(2) : raw.slice(2, -2)).trim();
    if (!body.startsWith(DIRECTIVE)) continue;
    const rest = body.slice(DIRECTIVE.length);
    if (rest !== '' && !/^\s/.test(rest)) continue;
    const names = (rest.split(' -- ')[0] ?? '').split(/[\s,]+/).filter(Boolean);
    const offset = scanner.getTokenOffset();
    const length = scanner.getTokenLength();
    directives.push({
      offset,
      length,
      targetLine: document.lines.position(offset + length).line + 1,
      ids: names.filter((name) => isFindingCode(name)),
      unknown: names.filter((name) => !isFindingCode(name)),
    });
  }
  return directives;
}

/**
 * Applies the suppression comments of a `.jsonc` document: a lint finding
 * that starts on the line after a `rules-lint-disable-next-line` comment
 * naming its rule is dropped. A comment that names no lint rule, names
 * something that is not one (a declaration code cannot be silenced: the
 * kernel would refuse the file anyway), or silences nothing becomes an
 * `unused-suppression` warning at the comment (unless `reportUnused` is
 * false: only part of the catalog ran, so silence proves nothing).
 */
export function applySuppressions(
  document: SourceDocument,
  findings: readonly Finding[],
  options: { reportUnused: boolean } = { reportUnused: true },
): Finding[] {
  const directives = readDirectives(document);
  if (directives.length === 0) return [...findings];
  const used = new Set<Directive>();
  const kept = findings.filter((finding) => {
    if (finding.source !== 'lint') return true;
    const directive = directives.find(
      (candidate) =>
        candidate.targetLine === finding.location.line && candidate.ids.includes(finding.code),
    );
    if (!directive) return true;
    used.add(directive);
    return false;
  });
  if (!options.reportUnused) return kept;
  for (const directive of directives) {
    const problem =
      directive.ids.length === 0 && directive.unknown.length === 0
        ? 'names no lint rule; write the ids of the rules to silence'
        : directive.unknown.length > 0
          ? `names ${directive.unknown.map((name) => `"${name}"`).join(', ')}, which ${directive.unknown.length === 1 ? 'is not a lint rule' : 'are not lint rules'} (declaration errors cannot be silenced)`
          : used.has(directive)
            ? undefined
            : `silences nothing: no ${directive.ids.join(' or ')} finding starts on line ${directive.targetLine}`;
    if (problem === undefined) continue;
    kept.push({
      code: UNUSED_SUPPRESSION,
      source: 'suppression',
      severity: 'warning',
      message: `this ${DIRECTIVE} comment ${problem}. Remove or correct it, so suppressions do not outlive the findings they were for.`,
      pointer: '',
      location: spanLocation(document.lines, directive.offset, directive.length),
    });
  }
  return kept;
}

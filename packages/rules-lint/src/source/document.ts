import type { Node } from 'jsonc-parser';
import type { SourceLocation } from '../findings.js';
import { resolvePointer } from './json-pointer.js';
import { LineIndex } from './line-index.js';
import { parseJson } from './parse-json.js';

/** A rule file parsed with positions: what every command and the language server work on. */
export interface SourceDocument {
  /** The name shown in reports (the path as given). */
  readonly fileName: string;
  readonly text: string;
  readonly root: Node;
  readonly value: unknown;
  readonly lines: LineIndex;
}

/** A parsed document, or the one-line reason the text is not JSON and where. */
export type ParsedDocument =
  | { ok: true; document: SourceDocument }
  | { ok: false; message: string; location: SourceLocation };

/** True for names whose JSON may carry comments (`*.jsonc`). */
export function allowsComments(fileName: string): boolean {
  return fileName.toLowerCase().endsWith('.jsonc');
}

/** Parses a rule file's text; comments are allowed when the name ends in `.jsonc`. Never throws. */
export function parseDocument(fileName: string, text: string): ParsedDocument {
  const parsed = parseJson(text, { allowComments: allowsComments(fileName) });
  const lines = new LineIndex(text);
  if (!parsed.ok) {
    return {
      ok: false,
      message: parsed.message,
      location: spanLocation(lines, parsed.offset, parsed.length),
    };
  }
  return { ok: true, document: { fileName, text, root: parsed.root, value: parsed.value, lines } };
}

/** Which part of a property a finding points at: its value (default) or its key. */
export type PointerPart = 'value' | 'key';

/**
 * The source span of a JSON pointer. A pointer past the tree (a missing
 * key) lands on the deepest node that exists; a container spanning several
 * lines is reduced to its opening bracket so editors do not paint a block.
 */
export function locatePointer(
  document: SourceDocument,
  pointer: string,
  part: PointerPart = 'value',
): SourceLocation {
  const target = resolvePointer(document.root, pointer);
  const node = part === 'key' && target.exact && target.keyNode ? target.keyNode : target.node;
  let length = node.length;
  if (node.type === 'object' || node.type === 'array') {
    const start = document.lines.position(node.offset);
    const end = document.lines.position(node.offset + node.length);
    if (start.line !== end.line) length = 1;
  }
  return spanLocation(document.lines, node.offset, length);
}

/** A location from an offset and a length. */
export function spanLocation(lines: LineIndex, offset: number, length: number): SourceLocation {
  const start = lines.position(offset);
  const end = lines.position(offset + length);
  return {
    offset,
    length,
    line: start.line,
    column: start.column,
    endLine: end.line,
    endColumn: end.column,
  };
}

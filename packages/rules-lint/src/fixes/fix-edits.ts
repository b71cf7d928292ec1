import { pointerFrom, pointerTokens } from '@airlock/core';
import type { Node } from 'jsonc-parser';
import type { Fix, FixOperation } from '../findings.js';

/** A text edit: replace `length` characters at `offset` with `content`. */
export interface TextEdit {
  readonly offset: number;
  readonly length: number;
  readonly content: string;
}

/**
 * The text edits that apply a fix to the source it was found in, touching
 * only what the fix changes: a value is replaced in place, and a removed
 * rule takes its own lines (or, inline, its own span) and one comma with
 * it, so comments and layout of every other rule stay as written. Every
 * edit is relative to the original text.
 */
export function fixEdits(text: string, root: Node, fix: Fix): TextEdit[] {
  return fix.operations.flatMap((operation) => operationEdits(text, root, operation));
}

/** Applies edits to a text, last first; overlapping edits are a caller's mistake. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let result = text;
  for (const edit of [...edits].sort((a, b) => b.offset - a.offset))
    result = result.slice(0, edit.offset) + edit.content + result.slice(edit.offset + edit.length);
  return result;
}

/** Applies a fix to a text and returns the new text. */
export function applyFix(text: string, root: Node, fix: Fix): string {
  return applyEdits(text, fixEdits(text, root, fix));
}

function operationEdits(text: string, root: Node, operation: FixOperation): TextEdit[] {
  const found = locate(root, operation.pointer);
  if (!found) return operation.op === 'set' ? insertion(text, root, operation) : [];
  if (operation.op === 'set')
    return [
      {
        offset: found.node.offset,
        length: found.node.length,
        content: JSON.stringify(operation.value),
      },
    ];
  if (!found.parent?.children) return [];
  // In an object the member to remove is the property (key and value), in an array the element.
  const member = found.parent.type === 'object' ? found.node.parent! : found.node;
  return removal(text, found.parent.children, found.parent.children.indexOf(member));
}

/**
 * The edit adding a member that is not there yet, as the last member of its
 * object (whose pointer must resolve to an object): on its own line with the
 * indentation of the member before it, or inline when that one is inline.
 */
function insertion(
  text: string,
  root: Node,
  operation: Extract<FixOperation, { op: 'set' }>,
): TextEdit[] {
  const tokens = pointerTokens(operation.pointer);
  const key = tokens.pop();
  const parentPointer = pointerFrom(tokens);
  const parent = parentPointer === '' ? { node: root } : locate(root, parentPointer);
  if (key === undefined || parent?.node.type !== 'object') return [];
  const member = `${JSON.stringify(key)}: ${JSON.stringify(operation.value)}`;
  const last = parent.node.children?.at(-1);
  if (last === undefined) return [{ offset: parent.node.offset + 1, length: 0, content: member }];
  const lineStart = text.lastIndexOf('\n', last.offset - 1) + 1;
  const indent = text.slice(lineStart, last.offset);
  const end = last.offset + last.length;
  if (!/^[ \t]*$/.test(indent) || lineStart <= parent.node.offset)
    return [{ offset: end, length: 0, content: `, ${member}` }];
  // A line comment after the last member stays with it: the new member goes on the next line.
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lineEnd = text.indexOf(eol, end);
  const rest = text.slice(end, lineEnd === -1 ? text.length : lineEnd);
  if (/^[ \t]*\/\/.*$/.test(rest))
    return [
      { offset: end, length: 0, content: ',' },
      { offset: end + rest.length, length: 0, content: `${eol}${indent}${member}` },
    ];
  return [{ offset: end, length: 0, content: `,${eol}${indent}${member}` }];
}

/**
 * The node at a JSON pointer with the container holding it, or undefined
 * past the tree. A key written twice resolves to its last copy, the one
 * JSON.parse keeps (as `resolvePointer` does).
 */
function locate(root: Node, pointer: string): { node: Node; parent: Node | undefined } | undefined {
  let node: Node | undefined = root;
  let parent: Node | undefined;
  for (const token of pointerTokens(pointer)) {
    if (!node) return undefined;
    parent = node;
    if (node.type === 'array') node = node.children?.[Number(token)];
    else if (node.type === 'object')
      node = node.children?.findLast((property) => property.children?.[0]?.value === token)
        ?.children?.[1];
    else return undefined;
  }
  return node ? { node, parent } : undefined;
}

/**
 * The edits removing member `index` of a container and exactly one
 * separating comma: the comma after it, or for the last member the comma
 * before it (only that character, so a comment after the previous member
 * stays). A member on its own lines takes those lines (its own trailing
 * comment included); an inline member takes its span.
 */
function removal(text: string, members: readonly Node[], index: number): TextEdit[] {
  const member = members[index]!;
  const start = member.offset;
  const end = member.offset + member.length;
  const previous = members[index - 1];
  const after = commaAfter(text, end);
  const before =
    after === undefined && previous
      ? commaAfter(text, previous.offset + previous.length)
      : undefined;
  const to = after === undefined ? end : after + 1;
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const rest = /^[ \t]*(\/\/[^\n]*)?\r?\n/.exec(text.slice(to));
  if (/^[ \t]*$/.test(text.slice(lineStart, start)) && rest) {
    const lines = { offset: lineStart, length: to + rest[0].length - lineStart, content: '' };
    return before === undefined ? [lines] : [{ offset: before, length: 1, content: '' }, lines];
  }
  if (before !== undefined) return [{ offset: before, length: end - before, content: '' }];
  // Inline: take the spaces after the comma too, so the next member moves up to where this one was.
  const spaces = members[index + 1] ? /^[ \t]*/.exec(text.slice(to))![0].length : 0;
  return [{ offset: start, length: to + spaces - start, content: '' }];
}

/** Offset of the comma that follows `offset` past white space and comments, if any. */
function commaAfter(text: string, offset: number): number | undefined {
  let position = offset;
  while (position < text.length) {
    const rest = text.slice(position);
    const skip = /^(\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/)/.exec(rest);
    if (skip) {
      position += skip[0].length;
      continue;
    }
    return text[position] === ',' ? position : undefined;
  }
  return undefined;
}

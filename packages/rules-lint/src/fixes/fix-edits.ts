import { pointerTokens } from '@airlock/core';
import { applyEdits, type Edit, type JSONPath, modify, type Node } from 'jsonc-parser';
import type { Fix, FixOperation } from '../findings.js';

/** A text edit: replace `length` characters at `offset` with `content`. */
export type TextEdit = Edit;

/**
 * The text edits that apply a fix to the source it was found in, keeping
 * the rest of the file (comments, layout) as written. Operations of one fix
 * never overlap, so every edit is relative to the original text.
 */
export function fixEdits(text: string, root: Node, fix: Fix): TextEdit[] {
  return fix.operations.flatMap((operation) => operationEdits(text, root, operation));
}

/** Applies a fix to a text and returns the new text. */
export function applyFix(text: string, root: Node, fix: Fix): string {
  return applyEdits(text, fixEdits(text, root, fix));
}

function operationEdits(text: string, root: Node, operation: FixOperation): TextEdit[] {
  const path = jsonPath(root, operation.pointer);
  if (!path) return [];
  const value = operation.op === 'set' ? operation.value : undefined;
  return modify(text, path, value, { formattingOptions: { insertSpaces: true, tabSize: 2 } });
}

/** Converts a JSON pointer into jsonc-parser's path (numbers for array indices), or undefined if it runs past the tree. */
function jsonPath(root: Node, pointer: string): JSONPath | undefined {
  const path: JSONPath = [];
  let node: Node | undefined = root;
  for (const token of pointerTokens(pointer)) {
    if (!node) return undefined;
    if (node.type === 'array') {
      const index = Number(token);
      path.push(index);
      node = node.children?.[index];
    } else {
      path.push(token);
      node = node.children?.find((property) => property.children?.[0]?.value === token)
        ?.children?.[1];
    }
  }
  return node ? path : undefined;
}

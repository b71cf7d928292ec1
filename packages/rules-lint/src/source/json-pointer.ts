import { pointerTokens } from '@airlock/core';
import type { Node } from 'jsonc-parser';

/** Where a pointer lands in a tree: the deepest node reached, and the key if it names a property. */
export interface PointerTarget {
  /** The value node, or the deepest existing ancestor when the pointer runs past the tree. */
  readonly node: Node;
  /** The property's key node, when the last token reached names an object member. */
  readonly keyNode: Node | undefined;
  /** False when the pointer runs past the tree (e.g. a missing key). */
  readonly exact: boolean;
}

/** Follows a pointer through a jsonc-parser tree; the last duplicate key wins, as in JSON.parse. */
export function resolvePointer(root: Node, pointer: string): PointerTarget {
  let node = root;
  let keyNode: Node | undefined;
  for (const token of pointerTokens(pointer)) {
    const next = childFor(node, token);
    if (!next) return { node, keyNode, exact: false };
    node = next.value;
    keyNode = next.key;
  }
  return { node, keyNode, exact: true };
}

function childFor(node: Node, token: string): { value: Node; key: Node | undefined } | undefined {
  if (node.type === 'array') {
    if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
    const value = node.children?.[Number(token)];
    return value ? { value, key: undefined } : undefined;
  }
  if (node.type !== 'object') return undefined;
  let found: { value: Node; key: Node | undefined } | undefined;
  for (const property of node.children ?? []) {
    const [key, value] = property.children ?? [];
    if (key?.value === token && value) found = { value, key };
  }
  return found;
}

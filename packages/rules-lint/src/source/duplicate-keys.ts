import type { Node } from 'jsonc-parser';

/** The code of the finding for a key repeated in one object. */
export const DUPLICATE_KEY = 'duplicate-key';

/** A key written again in the same object: the later key node, and the pointer to the property. */
export interface DuplicateKey {
  readonly key: string;
  readonly pointer: string;
  /** The later key's node: `JSON.parse` keeps its value (the kernel refuses the body). */
  readonly node: Node;
  /** The value the reader keeps, as written. */
  readonly kept: Node | undefined;
}

function escapeToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * Every repeated key in the tree, the later occurrence each time, in text
 * order. A reviewer reads the first value; `JSON.parse` keeps the last;
 * the kernel refuses the text (`duplicate_key`).
 */
export function duplicateKeys(root: Node): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  const stack: { node: Node; pointer: string }[] = [{ node: root, pointer: '' }];
  while (stack.length > 0) {
    const { node, pointer } = stack.pop()!;
    const children: { node: Node; pointer: string }[] = [];
    if (node.type === 'array') {
      (node.children ?? []).forEach((child, index) => {
        children.push({ node: child, pointer: `${pointer}/${index}` });
      });
    } else if (node.type === 'object') {
      const seen = new Set<string>();
      for (const property of node.children ?? []) {
        const [keyNode, value] = property.children ?? [];
        if (!keyNode || typeof keyNode.value !== 'string') continue;
        const key = keyNode.value;
        const path = `${pointer}/${escapeToken(key)}`;
        if (seen.has(key)) found.push({ key, pointer: path, node: keyNode, kept: value });
        seen.add(key);
        if (value) children.push({ node: value, pointer: path });
      }
    }
    // Reversed, so the stack visits children in text order.
    for (let index = children.length - 1; index >= 0; index--) stack.push(children[index]!);
  }
  return found.sort((a, b) => a.node.offset - b.node.offset);
}

import type { z } from 'zod';

/**
 * A refinement of a list whose items are named: a name given a second time is an issue at
 * `[index, 'name']` reading `<says> "<name>" twice` (e.g. `the manifest declares`).
 */
export function eachNameOnce(
  says: string,
): (items: readonly { name: string }[], context: z.RefinementCtx) => void {
  return (items, context) => {
    const seen = new Set<string>();
    items.forEach((item, index) => {
      if (seen.has(item.name)) {
        context.addIssue({
          code: 'custom',
          path: [index, 'name'],
          message: `${says} "${item.name}" twice`,
        });
      }
      seen.add(item.name);
    });
  };
}

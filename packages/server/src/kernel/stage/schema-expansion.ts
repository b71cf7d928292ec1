/**
 * What applying a schema to one input costs once its `$ref`s are followed. ajv compiles a
 * `$ref` as a call of its target's code, so a schema that names one subschema from two places
 * applies it twice: a chain of 30 definitions each naming the next twice (inside an `anyOf`
 * whose first branch fails late) applied its last one 2^30 times to the input `1`, and a
 * recursive schema doing so once per level of nesting took seconds on an array nested 26
 * deep. Counting JSON values alone (schema-cost.ts) sees a small schema there. This file
 * counts the schema as ajv walks it: every subschema once per way of reaching it, `$ref`s
 * followed, and a recursion unrolled only as deep as the input nests.
 */

/** Keywords whose subschemas apply to the same value as the schema holding them. */
const SAME_VALUE = new Set(['not', 'if', 'then', 'else']);
const SAME_VALUE_LISTS = new Set(['allOf', 'anyOf', 'oneOf']);
const SAME_VALUE_MAPS = new Set(['dependentSchemas', 'dependencies']);
/** Keywords whose subschemas apply to the items or members of the value. */
const CHILD_VALUE = new Set([
  'items',
  'additionalItems',
  'contains',
  'additionalProperties',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
const CHILD_VALUE_LISTS = new Set(['prefixItems', 'items']);
const CHILD_VALUE_MAPS = new Set(['properties', 'patternProperties']);
/** Reference keywords: a target this file cannot find is counted as past any bound. */
const REFERENCES = new Set(['$ref', '$dynamicRef', '$recursiveRef']);

/** How deep a value nests arrays and objects: a scalar 0, `[1]` 1 (walked without recursion). */
export function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (item.value === null || typeof item.value !== 'object') continue;
    deepest = Math.max(deepest, item.depth + 1);
    for (const child of Object.values(item.value))
      stack.push({ value: child, depth: item.depth + 1 });
  }
  return deepest;
}

function decodeToken(token: string): string {
  return decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The subschema a JSON pointer names under `base`, or undefined. */
function atPointer(base: unknown, pointer: string): unknown {
  if (pointer === '') return base;
  if (!pointer.startsWith('/')) return undefined;
  let value: unknown = base;
  for (const token of pointer.slice(1).split('/').map(decodeToken)) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, token)) return;
    value = (value as Record<string, unknown>)[token];
  }
  return value;
}

/**
 * The schemas carrying an `$id`, by that id (without a trailing `#`), and the root by '':
 * except that when a schema below the root has an `$id`, a `#` reference is resolved against
 * that schema by ajv, so the root no longer answers '' and such a reference is not followed.
 */
function schemasById(root: unknown): Map<string, unknown> {
  const byId = new Map<string, unknown>();
  let nested = false;
  const stack: unknown[] = [root];
  for (let value = stack.pop(); value !== undefined; value = stack.pop()) {
    if (value === null || typeof value !== 'object') continue;
    const id = (value as { $id?: unknown }).$id;
    if (typeof id === 'string') {
      byId.set(id.replace(/#$/, ''), value);
      if (value !== root) nested = true;
    }
    for (const child of Object.values(value)) stack.push(child);
  }
  if (!nested) byId.set('', root);
  return byId;
}

/**
 * How many schema values applying `schema` to a value nesting `depth` deep may evaluate at
 * most, per value of the input, `$ref`s followed (a `#` pointer, or one after an `$id` the
 * schema declares); past `limit` it answers `limit + 1` (so does a reference it cannot follow,
 * an anchor or a dynamic reference, and a reference loop that never reaches a nested value,
 * which ajv could not apply either).
 */
export function expandedSchemaCost(schema: unknown, depth: number, limit: number): number {
  const byId = schemasById(schema);
  const memo = new Map<unknown, number[]>();
  // The subschemas being counted, by the levels they are counted at: meeting one again loops.
  const active = new Map<unknown, Set<number>>();
  const past = limit + 1;

  const target = (reference: unknown): unknown => {
    if (typeof reference !== 'string') return undefined;
    const hash = reference.indexOf('#');
    const base = hash === -1 ? reference : reference.slice(0, hash);
    const owner = byId.get(base);
    return owner === undefined
      ? undefined
      : atPointer(owner, hash === -1 ? '' : reference.slice(hash + 1));
  };

  const cost = (node: unknown, levels: number): number => {
    if (levels < 0) return 0;
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return 1;
    const known = memo.get(node)?.[levels];
    if (known !== undefined) return known;
    const walking = active.get(node) ?? new Set<number>();
    if (walking.has(levels)) return past;
    walking.add(levels);
    active.set(node, walking);
    let total = 1;
    for (const [keyword, value] of Object.entries(node)) {
      if (total > limit) break;
      if (REFERENCES.has(keyword)) {
        const found = keyword === '$ref' ? target(value) : undefined;
        total += found === undefined ? past : cost(found, levels);
      } else if (SAME_VALUE.has(keyword)) total += cost(value, levels);
      else if (SAME_VALUE_LISTS.has(keyword) && Array.isArray(value)) {
        for (const item of value) total += cost(item, levels);
      } else if (SAME_VALUE_MAPS.has(keyword) && value !== null && typeof value === 'object') {
        for (const item of Object.values(value))
          total += Array.isArray(item) ? 1 : cost(item, levels);
      } else if (CHILD_VALUE_LISTS.has(keyword) && Array.isArray(value)) {
        for (const item of value) total += cost(item, levels - 1);
      } else if (CHILD_VALUE.has(keyword)) total += cost(value, levels - 1);
      else if (CHILD_VALUE_MAPS.has(keyword) && value !== null && typeof value === 'object') {
        for (const item of Object.values(value)) total += cost(item, levels - 1);
      } else total += 1;
    }
    walking.delete(levels);
    const counted = Math.min(total, past);
    const byLevel = memo.get(node) ?? [];
    byLevel[levels] = counted;
    memo.set(node, byLevel);
    return counted;
  };

  return cost(schema, depth);
}

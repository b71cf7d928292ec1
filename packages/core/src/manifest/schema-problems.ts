import type { Problem } from '../issues/problem.js';
import { SCHEMA_NAME_MAPS, schemaSizeProblem, schemaValues } from './schema-size.js';

/**
 * The static part of the kernel's check on a tool manifest's input schemas,
 * made when a profile or run declares one: the shapes that would stall or
 * break checking a call (`uniqueItems` compared pair by pair over an
 * unbounded array, a `pattern` too long or with too many counted
 * repetitions, a schema past `SCHEMA_VALUES_MAX` values). Pure: the
 * kernel adds what needs its engines (the patterns its linear-time engine
 * refuses, through {@link SchemaCheckOptions.refusedPattern}, and compiling
 * with ajv); the rules linter reports the same problems before a file is
 * declared.
 */

/** The longest pattern a schema may hold. */
export const PATTERN_LENGTH_MAX = 1024;
/** The most a pattern's counted repetitions (`{n}`, `{n,m}`) may add up to. */
export const PATTERN_REPEATS_MAX = 256;
/** The most items `uniqueItems` may compare pair by pair (a million comparisons). */
export const UNIQUE_PAIRWISE_MAX = 1000;

/** Keywords whose values are data, not subschemas. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);
/** Item types ajv checks `uniqueItems` over with a hash, in linear time. */
const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);

/** What the caller adds to the static check. */
export interface SchemaCheckOptions {
  /**
   * Why the regular-expression engine that will run the schema's patterns
   * refuses one, or null. Asked before the cost checks of each pattern;
   * without it only those run.
   */
  readonly refusedPattern?: (pattern: string) => string | null;
}

/**
 * Why a pattern would make matching costly, or null: a linear-time engine
 * matches in time proportional to the compiled pattern, which counted
 * repetitions multiply (`[a-z]{1000}` ten times over took seconds on 100 KB).
 */
export function costlyPatternProblem(pattern: string): string | null {
  if (pattern.length > PATTERN_LENGTH_MAX) {
    return `a pattern is at most ${PATTERN_LENGTH_MAX} characters, not ${pattern.length}`;
  }
  let repeats = 0;
  for (const [, low, high] of pattern.matchAll(/\{(\d+)(?:,(\d*))?\}/g)) {
    repeats += Math.max(Number(low), Number(high || 0));
  }
  return repeats > PATTERN_REPEATS_MAX
    ? `the pattern's counted repetitions add up to ${repeats}, over ${PATTERN_REPEATS_MAX}: matching it would cost the kernel seconds per call`
    : null;
}

/**
 * Why `uniqueItems` would cost too much, or null: over items of a scalar
 * `type` ajv keeps a hash (linear), over any other items it compares every
 * pair, which a 140,000-item array made 24 seconds of the kernel's thread.
 */
function uniqueItemsProblem(schema: Record<string, unknown>): string | null {
  if (schema.uniqueItems !== true) return null;
  const items = schema.items as { type?: unknown } | undefined;
  const types = items && typeof items === 'object' ? [items.type].flat() : [];
  if (types.length > 0 && types.every((type) => SCALAR_TYPES.has(type as string))) return null;
  const max = schema.maxItems;
  if (typeof max === 'number' && max <= UNIQUE_PAIRWISE_MAX) return null;
  return `uniqueItems over items that are not all of a scalar type needs maxItems of at most ${UNIQUE_PAIRWISE_MAX}: every pair of items is compared`;
}

function pointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function patternProblem(pattern: string, options: SchemaCheckOptions): string | null {
  return options.refusedPattern?.(pattern) ?? costlyPatternProblem(pattern);
}

interface Culprit {
  readonly pointer: string;
  readonly why: string;
}

/**
 * The first `pattern`, `patternProperties` key or `uniqueItems` that would stall or break
 * checking. `names` says the object's keys are names (under `properties` and the other
 * {@link SCHEMA_NAME_MAPS}): a property called `default` or `pattern` is a subschema, walked
 * as any other, never skipped as data nor read as a keyword.
 */
function schemaCulprit(
  value: unknown,
  pointer: string,
  options: SchemaCheckOptions,
  names = false,
): Culprit | null {
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = schemaCulprit(item, `${pointer}/${index}`, options);
      if (found) return found;
    }
    return null;
  }
  if (names) {
    for (const [key, child] of Object.entries(value)) {
      const found = schemaCulprit(child, `${pointer}/${pointerToken(key)}`, options);
      if (found) return found;
    }
    return null;
  }
  const unique = uniqueItemsProblem(value as Record<string, unknown>);
  if (unique !== null) return { pointer: `${pointer}/uniqueItems`, why: unique };
  for (const [key, child] of Object.entries(value)) {
    const here = `${pointer}/${pointerToken(key)}`;
    if (key === 'pattern' && typeof child === 'string') {
      const why = patternProblem(child, options);
      if (why !== null) return { pointer: here, why };
      continue;
    }
    if (key === 'patternProperties' && child !== null && typeof child === 'object') {
      for (const pattern of Object.keys(child)) {
        const why = patternProblem(pattern, options);
        if (why !== null) return { pointer: `${here}/${pointerToken(pattern)}`, why };
      }
    }
    if (DATA_KEYWORDS.has(key)) continue;
    const found = schemaCulprit(child, here, options, SCHEMA_NAME_MAPS.has(key));
    if (found) return found;
  }
  return null;
}

/**
 * The static problem of one input schema declared at `pointer`
 * (`/tool_manifest/N/input_schema`), or null: the first shape that would
 * stall checking (pointing at it), else the size bound (pointing at the
 * schema). A schema that is not an object is left to the manifest's shape
 * check. Never throws, except what `options.refusedPattern` throws.
 */
export function inputSchemaStaticProblem(
  schema: unknown,
  pointer: string,
  options: SchemaCheckOptions = {},
): Problem | null {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return null;
  const culprit = schemaCulprit(schema, pointer, options);
  if (culprit)
    return { code: 'tool_manifest_invalid', pointer: culprit.pointer, message: culprit.why };
  const tooLarge = schemaSizeProblem(schemaValues(schema));
  return tooLarge === null ? null : { code: 'tool_manifest_invalid', pointer, message: tooLarge };
}

/**
 * The static problems of a declaration's `tool_manifest` (at most one per
 * entry, see {@link inputSchemaStaticProblem}), with pointers under
 * `/tool_manifest`. A value that is not a list, or an entry without an
 * object schema, has none here (the manifest's shape check reports those).
 */
export function manifestSchemaStaticProblems(
  manifest: unknown,
  options: SchemaCheckOptions = {},
): Problem[] {
  if (!Array.isArray(manifest)) return [];
  const problems: Problem[] = [];
  manifest.forEach((entry, index) => {
    const schema = (entry as { input_schema?: unknown } | null)?.input_schema;
    const problem = inputSchemaStaticProblem(
      schema,
      `/tool_manifest/${index}/input_schema`,
      options,
    );
    if (problem) problems.push(problem);
  });
  return problems;
}

/**
 * How large a tool's input JSON Schema is, counted as the kernel counts it
 * before compiling one: every JSON value ajv evaluates (subschemas,
 * keywords' values, enum members), annotations it never evaluates
 * (`description`, `title`, `examples`, `default`, `$comment`) left out, so a
 * well documented schema costs what its checks cost. Pure; the kernel and
 * the rules linter both count with it.
 */

/** The most JSON values (annotations aside) a declared input schema may have. */
export const SCHEMA_VALUES_MAX = 3000;

const ANNOTATIONS = new Set(['description', 'title', 'examples', 'default', '$comment']);

/**
 * Keywords whose value maps names (a property's, a pattern, a definition's) to subschemas:
 * under them a key is a name, never a keyword, so a property called `default` or `enum` is
 * a subschema that costs what its checks cost, like any other.
 */
export const SCHEMA_NAME_MAPS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  'definitions',
  '$defs',
  'dependentSchemas',
  'dependencies',
]);

/**
 * The JSON values of `value`, counted up to `limit` (a count past it answers
 * `limit + 1`, having looked at no more than that many values), leaving out
 * the members of schema objects named in `skipKeys` (a name under one of
 * {@link SCHEMA_NAME_MAPS} is not skipped). Iterative: no recursion to
 * overflow on deep nesting. Never throws.
 */
export function jsonValuesUpTo(
  value: unknown,
  limit: number,
  skipKeys?: ReadonlySet<string>,
): number {
  let count = 0;
  // `names`: the object's keys are names (a name map's), not keywords.
  const pending: { value: unknown; names: boolean }[] = [{ value, names: false }];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const { value: current, names } = item;
    count += 1;
    if (count > limit) return count;
    if (current === null || typeof current !== 'object') continue;
    if (Array.isArray(current)) {
      for (const child of current) pending.push({ value: child, names: false });
      continue;
    }
    for (const [key, child] of Object.entries(current)) {
      if (names || skipKeys === undefined) {
        pending.push({ value: child, names: false });
      } else if (!skipKeys.has(key)) {
        pending.push({ value: child, names: SCHEMA_NAME_MAPS.has(key) });
      }
    }
  }
  return count;
}

/** The JSON values of a schema that ajv evaluates: subschemas, keywords' values, enum members. */
export function schemaValues(schema: unknown): number {
  return jsonValuesUpTo(schema, Number.POSITIVE_INFINITY, ANNOTATIONS);
}

/** Why a declared schema of `values` JSON values is too large to compile, or null. */
export function schemaSizeProblem(values: number): string | null {
  if (values <= SCHEMA_VALUES_MAX) return null;
  return (
    `the input_schema has ${values} JSON values besides its annotations; at most ` +
    `${SCHEMA_VALUES_MAX} are accepted, since compiling and applying a larger schema would ` +
    "hold up every other call: split the tool or move a long enum's values into the description"
  );
}

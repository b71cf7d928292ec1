/**
 * What checking a call's input against its tool's JSON Schema costs, bounded
 * before ajv runs. ajv compiles a schema to code (time grows with the
 * schema, and faster than linearly for `oneOf` and `anyOf` of objects), then
 * applies, to each value of the input, the subschemas that reach it: an
 * `enum` of 6,000 values over an array of 20,000 items, or an `allOf` of 300
 * subschemas collecting an error each for every item, kept the kernel's only
 * thread for seconds to minutes. Two bounds keep that from happening:
 *
 * - a schema of more than {@link SCHEMA_VALUES_MAX} JSON values is refused
 *   when it is declared (compiling the costliest shapes that size took about
 *   0.1 s on this machine kind, `pnpm --filter @airlock/server bench:schema-cost`);
 * - a call is refused, as data the model reads, when its input's values times
 *   the schema's values exceed {@link CHECK_BUDGET}: on every shape measured
 *   ajv's time grew with that product, at up to about 75 ns per unit (an
 *   `anyOf` whose last branch matches), so a check stays under about 0.1 s.
 *
 * Annotations ajv never evaluates (`description`, `title`, `examples`,
 * `default`, `$comment`) are not counted, so a well documented schema costs
 * what its checks cost.
 */

/** The most JSON values (annotations aside) a declared input schema may have. */
export const SCHEMA_VALUES_MAX = 3000;

/** The most input values times schema values a call's check may cost. */
export const CHECK_BUDGET = 1_000_000;

/**
 * Up to this product, a refusal lists every problem (ajv's `allErrors`, which
 * builds an error per problem); past it, the first problem alone.
 */
export const REPORT_ALL_BUDGET = 100_000;

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
 * overflow on deep nesting.
 */
function jsonValuesUpTo(value: unknown, limit: number, skipKeys?: ReadonlySet<string>): number {
  let count = 0;
  // `names`: the object's keys are names (a name map's), not keywords.
  const pending: { value: unknown; names: boolean }[] = [{ value, names: false }];
  while (pending.length > 0) {
    const { value: current, names } = pending.pop()!;
    count += 1;
    if (count > limit) return count;
    if (current === null || typeof current !== 'object') continue;
    if (Array.isArray(current)) {
      for (const item of current) pending.push({ value: item, names: false });
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

/**
 * The JSON values of a call's input, counted up to `limit` (a count past it
 * answers `limit + 1`, having looked at no more than that many values).
 */
export function inputValuesUpTo(input: unknown, limit: number): number {
  return jsonValuesUpTo(input, limit);
}

/** Why a declared schema is too large to compile, or null. */
export function schemaSizeProblem(values: number): string | null {
  if (values <= SCHEMA_VALUES_MAX) return null;
  return (
    `the input_schema has ${values} JSON values besides its annotations; at most ` +
    `${SCHEMA_VALUES_MAX} are accepted, since compiling and applying a larger schema would ` +
    "hold up every other call: split the tool or move a long enum's values into the description"
  );
}

/** How many input values a call may have against a schema of `schemaValueCount` values. */
export function inputValuesAllowed(schemaValueCount: number): number {
  return Math.floor(CHECK_BUDGET / Math.max(1, schemaValueCount));
}

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

import { jsonValuesUpTo } from '@airlock/core';

// The declaration-time size check lives in core, where the rules linter runs it too.
export { SCHEMA_VALUES_MAX, schemaSizeProblem, schemaValues } from '@airlock/core';

/** The most input values times schema values a call's check may cost. */
export const CHECK_BUDGET = 1_000_000;

/**
 * Up to this product, a refusal lists every problem (ajv's `allErrors`, which
 * builds an error per problem); past it, the first problem alone.
 */
export const REPORT_ALL_BUDGET = 100_000;

/**
 * The JSON values of a call's input, counted up to `limit` (a count past it
 * answers `limit + 1`, having looked at no more than that many values).
 */
export function inputValuesUpTo(input: unknown, limit: number): number {
  return jsonValuesUpTo(input, limit);
}

/** How many input values a call may have against a schema of `schemaValueCount` values. */
export function inputValuesAllowed(schemaValueCount: number): number {
  return Math.floor(CHECK_BUDGET / Math.max(1, schemaValueCount));
}

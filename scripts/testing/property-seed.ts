/**
 * The seed every fast-check property draws from (seed-properties.ts, vitest's setup file, hands
 * it to fast-check), so a test run draws the same cases every time. CI then fails on a change,
 * never on a lucky draw: a property whose reference model lagged the code (f64fe6d9) and a
 * coverage count that came out low on one seed (rule-containment: 9 shadowed allows where more
 * than 10 were needed) each turned one CI run red.
 *
 * PROPERTY_SEED=<integer> draws from another seed; PROPERTY_SEED=random lets fast-check pick one
 * per property (it prints the seed beside any counterexample). `pnpm test:properties` explores
 * new seeds that way and prints the one to replay when a round fails.
 */
export const DEFAULT_PROPERTY_SEED = 20_261_207;

/** The seed `PROPERTY_SEED` names: undefined for `random`, the fixed default when unset. */
export function propertySeed(chosen: string | undefined): number | undefined {
  if (chosen === 'random') return undefined;
  if (chosen === undefined || chosen.trim() === '') return DEFAULT_PROPERTY_SEED;
  const seed = Number(chosen);
  if (!Number.isSafeInteger(seed)) {
    throw new Error(`PROPERTY_SEED must be an integer or "random", not ${JSON.stringify(chosen)}`);
  }
  return seed;
}

import { MODEL_ROUNDS_DEFAULT } from '@airlock/core';
import type { RunTable } from '../../store/schema.js';

/** The code a run fails with when its model asks for a round of calls past its `max_rounds`. */
export const MAX_ROUNDS_EXCEEDED = 'max_rounds_exceeded';

/**
 * The most rounds of calls a run's model may ask for, or null when nothing
 * but its provider bounds them: a `scripted` run's rounds are its list, and a
 * gateway client's calls are not asked for by the kernel.
 */
export function maxRoundsOf(run: Pick<RunTable, 'provider'>): number | null {
  const config = JSON.parse(run.provider) as { kind: string; max_rounds?: number };
  if (config.kind !== 'openai') return null;
  return config.max_rounds ?? MODEL_ROUNDS_DEFAULT;
}

/**
 * The run's end when its model, having had its `max_rounds` rounds of calls,
 * asks for another (its calls are then not planted), or null. A final answer
 * is always taken: the bound ends a model that keeps calling tools, which
 * would otherwise be asked again until the run's clocks or a person stop it.
 */
export function roundLimitEnd(
  run: Pick<RunTable, 'provider' | 'round'>,
): { code: string; detail: string } | null {
  const max = maxRoundsOf(run);
  if (max === null || run.round < max) return null;
  return {
    code: MAX_ROUNDS_EXCEEDED,
    detail: `the model asked for another round of tool calls after its ${max} (the provider's max_rounds); the run was ended and those calls were not run`,
  };
}

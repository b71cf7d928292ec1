import type { RunReading } from './history.js';

/**
 * The most rounds in a row a run's model may ask only for refused calls. A
 * model that keeps asking for what it is refused is asked again at once,
 * with a longer history each time, and nothing raises the run to a person:
 * without a bound it would run (and cost) until someone stops it.
 */
export const REFUSED_ROUNDS_MAX = 20;

/** The code a run fails with when its model reached {@link REFUSED_ROUNDS_MAX}. */
export const REFUSED_ROUNDS_EXCEEDED = 'refused_rounds_exceeded';

/**
 * The run's end when its model's last {@link REFUSED_ROUNDS_MAX} rounds
 * asked only for refused calls (the model is then not asked again), or null.
 */
export function refusalLoopEnd(reading: RunReading): { code: string; detail: string } | null {
  if (reading.refusedInARow < REFUSED_ROUNDS_MAX) return null;
  return {
    code: REFUSED_ROUNDS_EXCEEDED,
    detail: `the model's last ${REFUSED_ROUNDS_MAX} rounds asked only for calls that were refused (approval_denied, invalid_question); the run was ended rather than ask it again`,
  };
}

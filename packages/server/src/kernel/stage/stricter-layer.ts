import { LAYER_VERDICT_STRICTNESS, type LayerDecision } from '@airlock/core';

/**
 * The stricter of two things one layer said (deny > ask > allow), the first
 * on a tie; null when neither applies. The reminders of both ride on the
 * result, each once. A layer that reads a call twice (under its resolved
 * name and under the name an alias took it from) composes the two with this.
 */
export function stricterLayerDecision(
  first: LayerDecision | null,
  second: LayerDecision | null,
): LayerDecision | null {
  if (first === null || second === null) return first ?? second;
  const winner =
    LAYER_VERDICT_STRICTNESS[second.verdict] > LAYER_VERDICT_STRICTNESS[first.verdict]
      ? second
      : first;
  const reminders = [...new Set([...first.reminders, ...second.reminders])];
  return reminders.length === winner.reminders.length ? winner : { ...winner, reminders };
}

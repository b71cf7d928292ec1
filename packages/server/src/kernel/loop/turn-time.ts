import type { ModelProvider } from '../../providers/types.js';
import type { KernelContext } from '../context.js';

/** How long one model round may take when its provider names no limit of its own. */
export const DEFAULT_TURN_MS = 120_000;
/**
 * How much longer a process holds a run's model turn than the round may take:
 * time to record the answer, so that another process does not take the turn
 * over (and ask the model again) while an answer that arrived in time is
 * being written.
 */
const RECORD_MARGIN_MS = 30_000;

/** The longest one round of `model` may take: its own limit, or the default. */
export function turnTimeoutOf(model: ModelProvider | undefined): number {
  return model?.turnTimeoutMs ?? DEFAULT_TURN_MS;
}

/**
 * How long a process leases a run's model turn: past the longest round any of
 * the kernel's providers may take, plus the margin to record it. The lease is
 * taken before the run's provider is read, so it covers the slowest one.
 */
export function modelTurnLeaseMs(ctx: Pick<KernelContext, 'providers'>): number {
  let longest = DEFAULT_TURN_MS;
  for (const model of ctx.providers.values()) {
    if (!model.inline && !model.external) longest = Math.max(longest, turnTimeoutOf(model));
  }
  return longest + RECORD_MARGIN_MS;
}

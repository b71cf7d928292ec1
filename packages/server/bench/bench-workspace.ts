import type { Airlock } from '../src/airlock.js';
import { workspaceWithTokens } from '../src/testing/workspace-tokens.js';
import type { Target } from './round-trip.js';

/**
 * A fresh workspace in an in-process kernel, with an agent application and
 * one token of each kind: where the in-process benchmarks send their calls.
 */
export async function benchWorkspace(airlock: Airlock): Promise<Target & { executor: string }> {
  const { workspaceId, tokens } = await workspaceWithTokens(airlock.store, 'bench');
  return { url: airlock.url, ws: `/api/v1/workspaces/${workspaceId}`, ...tokens };
}

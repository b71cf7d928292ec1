import type { Airlock } from '../src/airlock.js';
import {
  createAgentApplication,
  createCredential,
  createWorkspace,
} from '../src/store/accounts.js';
import type { Target } from './round-trip.js';

/**
 * A fresh workspace in an in-process kernel, with an agent application and
 * one token of each kind: where the in-process benchmarks send their calls.
 */
export async function benchWorkspace(airlock: Airlock): Promise<Target & { executor: string }> {
  const ws = await createWorkspace(airlock.store, 'bench');
  const app = await createAgentApplication(airlock.store, { workspaceId: ws.id, name: 'a' });
  const token = async (kind: 'agent' | 'executor' | 'member') =>
    (
      await createCredential(airlock.store, {
        workspaceId: ws.id,
        kind,
        agentApplicationId: app.id,
      })
    ).token;
  return {
    url: airlock.url,
    ws: `/api/v1/workspaces/${ws.id}`,
    agent: await token('agent'),
    executor: await token('executor'),
    member: await token('member'),
  };
}

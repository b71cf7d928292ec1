import { post } from './http-client.js';

/** Where round trips go: a kernel's URL, its workspace's REST prefix, and the tokens that park and approve. */
export interface Target {
  url: string;
  /** The REST prefix of the workspace: `/api/v1/workspaces/ws_…`. */
  ws: string;
  agent: string;
  member: string;
}

/**
 * One park-then-approve round trip of the model shape: `POST /runs` for a
 * scripted run whose one call (`deploy`) parks, then `POST .../approve`.
 */
export async function parkThenApprove(target: Target): Promise<void> {
  const run = await post(target.url, target.agent, `${target.ws}/runs`, {
    approval_mode: 'ask',
    input: 'bench',
    provider: {
      kind: 'scripted',
      rounds: [{ tool_calls: [{ name: 'deploy', input: { env: 'prod' } }] }, { final: 'ok' }],
    },
  });
  const key = run.attention[0]?.blocked_task_keys[0];
  await post(target.url, target.member, `${target.ws}/runs/${run.id}/tasks/${key}/approve`, {});
}

/** Runs `trip` back to back from `clients` concurrent clients for `ms`; returns how many completed. */
export async function keepBusy(
  clients: number,
  ms: number,
  trip: () => Promise<void>,
): Promise<number> {
  const end = performance.now() + ms;
  let trips = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        await trip();
        trips += 1;
      }
    }),
  );
  return trips;
}

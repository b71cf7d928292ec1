import { readEventPage } from '../store/events.js';
import type { Deployment } from './harness.js';

/*
 * The runs the retention tests age past their windows: one that parks (its
 * run stays open, as a long-lived hooked session or gateway run does) and
 * one that ends at once, and the log a run left.
 */

/** A run whose one call parks under `ask`. */
export const PARKS = {
  approval_mode: 'ask',
  input: 'deploy it',
  provider: {
    kind: 'scripted',
    rounds: [{ tool_calls: [{ name: 'deploy', input: {} }] }, { final: 'done' }],
  },
};

/** A run that answers at once and completes. */
export const SAY_HI = {
  approval_mode: 'bypass',
  input: 'hello',
  provider: { kind: 'scripted', rounds: [{ final: 'hi' }] },
};

/** Starts a {@link PARKS} run and answers its id once its call waits for a person. */
export async function parkedRun(d: Deployment): Promise<string> {
  const runId = (await d.agent.post(`${d.ws}/runs`, PARKS)).body.id as string;
  for (let i = 0; i < 200; i++) {
    const task = await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`);
    if (task.body.state === 'needs_approval') return runId;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`run ${runId} never parked`);
}

/** Starts a {@link SAY_HI} run and answers its id once it completed. */
export async function endedRun(d: Deployment): Promise<string> {
  const runId = (await d.agent.post(`${d.ws}/runs`, SAY_HI)).body.id as string;
  for (let i = 0; i < 200; i++) {
    if ((await d.member.get(`${d.ws}/runs/${runId}`)).body.state === 'completed') return runId;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`run ${runId} never completed`);
}

/** The types of the events the store still holds of a run, in order. */
export async function eventsOf(d: Deployment, runId: string): Promise<{ type: string }[]> {
  const page = { workspaceId: d.workspaceId, runId, after: 0, limit: 10_000 };
  const { rows } = await readEventPage(d.airlock.store, page);
  return rows.map(({ type }) => ({ type }));
}

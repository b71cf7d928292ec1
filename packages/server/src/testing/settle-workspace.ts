/*
 * The workspace the policy settle tests share (tests only): a kernel on a fresh store of a
 * backend, members Ana and Bo, and a rule on `wipe` calls whose approvers and quorum a test
 * changes to have standing approvals met.
 */
import { expect } from 'vitest';
import { writeApprovalPolicy } from '../store/approvals.js';
import {
  type Answer,
  addMember,
  type Deployment,
  deploy,
  type MemberOf,
  runOfCalls,
  waitFor,
} from './harness.js';
import type { Backend } from './stores.js';

/** An event of a run's log as the settle tests read it. */
export interface SettleEvent {
  type: string;
  task_key: string | null;
  data: Record<string, unknown>;
}

/** A run's parked calls, each approved once by Ana. */
export interface ParkedCalls {
  runId: string;
  keys: string[];
  /** Each row's path, `{ws}/runs/{run}/tasks/{key}`. */
  rows: string[];
}

/** The deployment, its members and what the settle tests do with them. */
export interface SettleWorkspace {
  d: Deployment;
  ana: MemberOf;
  bo: MemberOf;
  /** A policy of one rule on `wipe`: `approvers` (Ana and Bo by default), `required` of them. */
  rule(required: number, approvers?: string[]): Record<string, unknown>;
  /** Puts the policy over the API (its settle runs); answers the put. */
  put(policy: Record<string, unknown>): Promise<Answer>;
  /**
   * Writes the policy as a put does but settles nothing: what a process that stopped between a
   * put's commit and its settle leaves behind. Answers the policy's version.
   */
  writeUnsettled(policy: Record<string, unknown>): Promise<number>;
  /** Parks `count` calls of `tool` (wipe by default) in one run; Ana approves each (16 at a time). */
  parkApprovedByAna(count: number, tool?: string): Promise<ParkedCalls>;
  /** The states of a run's rows, sorted. */
  states(runId: string): Promise<string[]>;
  /** The run's task.approved events (its first 1000 events read). */
  approvedEvents(runId: string): Promise<SettleEvent[]>;
  /** Waits until none of the run's rows waits for an approval. */
  noneWaits(runId: string, what: string): Promise<void>;
}

/** Starts the deployment of `backend` with members Ana and Bo; close it with `d.close()`. */
export async function settleWorkspace(
  backend: Backend,
  options: Parameters<typeof deploy>[1] = {},
): Promise<SettleWorkspace> {
  const d = await deploy(backend, options);
  const [ana, bo] = [await addMember(d, 'Ana'), await addMember(d, 'Bo')];
  const tasksOf = async (runId: string) =>
    (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as {
      key: string;
      state: string;
    }[];
  const workspace: SettleWorkspace = {
    d,
    ana,
    bo,
    rule: (required, approvers = [ana.id, bo.id]) => ({
      rules: [{ tool: 'wipe', approvers, required }],
    }),
    put: (policy) => d.member.put(`${d.ws}/approval_policy`, { policy }),
    writeUnsettled: async (policy) =>
      (
        await d.airlock.store.transaction((tx) =>
          writeApprovalPolicy(tx, { workspaceId: d.workspaceId, policy, principal: 'member:x' }),
        )
      ).version,
    async parkApprovedByAna(count, tool = 'wipe') {
      const runId = await runOfCalls(d, { mode: 'ask', tool, count, state: 'needs_approval' });
      const keys = (await tasksOf(runId)).map((task) => task.key);
      const rows = keys.map((key) => `${d.ws}/runs/${runId}/tasks/${key}`);
      for (let at = 0; at < rows.length; at += 16) {
        const answers = await Promise.all(
          rows.slice(at, at + 16).map((row) => ana.client.post(`${row}/approve`, {})),
        );
        for (const answer of answers) {
          expect(answer.status).toBe(200);
          expect(answer.body.approvals?.received).toHaveLength(1);
        }
      }
      return { runId, keys, rows };
    },
    states: async (runId) => (await tasksOf(runId)).map((task) => task.state).sort(),
    async approvedEvents(runId) {
      const { events } = (await d.member.get(`${d.ws}/runs/${runId}/events?limit=1000`)).body;
      return (events as SettleEvent[]).filter((event) => event.type === 'task.approved');
    },
    async noneWaits(runId, what) {
      await waitFor(
        async () => (await tasksOf(runId)).every((task) => task.state !== 'needs_approval'),
        { timeoutMs: 60_000, what },
      );
    },
  };
  return workspace;
}

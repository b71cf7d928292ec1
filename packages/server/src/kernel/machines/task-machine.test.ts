import { EVENT_TYPES } from '@airlock/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAirlockError } from '../../errors.js';
import { createWorkspace } from '../../store/accounts.js';
import { insertRunRow } from '../../store/run-writes.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import { insertTask } from '../../store/task-moves.js';
import { backends } from '../../testing/stores.js';
import { moveTask, plantRow } from './move-task.js';
import { RUN_STATES } from './run-machine.js';
import { openObligation, roundSettled, type SettlementRow } from './run-state.js';
import {
  checkMove,
  holds,
  mayReach,
  OUTCOME_UNKNOWN,
  TASK_VERB_NAMES,
  TASK_VERBS,
  type TaskVerb,
  verbRule,
} from './task-machine.js';
import { isTerminal, TASK_STATES, type TaskState } from './task-states.js';

/** The data of a planted row's two events, as the approval stage writes them. */
const CREATED = { origin: 'model', kind: 'tool', tool_name: 'shell', round: 1 } as const;
const GRANTED = {
  type: 'task.granted' as const,
  data: { granted_by: 'rule' as const, matched: [0] },
};

const all = await backends();
const NOW = 1_000_000;

function runRow(id: string, workspaceId: string, state: RunTable['state']): RunTable {
  return {
    id,
    workspace_id: workspaceId,
    agent_application_id: null,
    conversation_id: null,
    regenerated_from: null,
    loop: 'kernel',
    state,
    phase: state === 'running' ? 'tools' : 'done',
    approval_mode: 'ask',
    approval_rules: '[]',
    tool_names: null,
    tool_aliases: '{}',
    lifecycle_hooks: null,
    policy_layers: null,
    config_version: null,
    provider: '{"kind":"scripted","rounds":[]}',
    input: '{"content":""}',
    on_failure: 'hold',
    round: 1,
    task_counter: 1,
    attention: null,
    final_answer: null,
    error_code: null,
    error_detail: null,
    model_lease_owner: null,
    model_lease_until: null,
    continuations: 0,
    pending_answer: null,
    context_limit_bytes: null,
    context_limit_tokens: null,
    compactions: 0,
    summary: null,
    summary_through_round: 0,
    created_by: 'test',
    created_at: NOW,
    updated_at: NOW,
    ended_at: null,
  };
}

/** A row in a given state, shaped so that the verb's other conditions (kind, hold, claim, clock) admit it. */
function taskRow(run: RunTable, state: TaskState, verb: TaskVerb): TaskTable {
  const rule = verbRule(verb);
  return {
    workspace_id: run.workspace_id,
    run_id: run.id,
    key: 't1',
    round: 1,
    origin: 'model',
    kind: rule.kinds?.[0] ?? 'tool',
    state,
    tool_call_id: null,
    tool_name: 'bash',
    resolved_tool_name: 'bash',
    tool_input: '{}',
    effect_profile: null,
    decision: null,
    on_failure: 'hold',
    addressee: null,
    deadline_at: NOW - 1,
    claim_id: 'claim_1',
    lease_until: NOW - 1,
    attempts: 0,
    result: null,
    error_code:
      state === 'failed' || state === 'timed_out'
        ? verb === 'late_report'
          ? OUTCOME_UNKNOWN
          : 'tool_failed'
        : null,
    error_detail: null,
    decided_by: null,
    prompt: null,
    options: null,
    multi: null,
    resolution_token_hash: null,
    appended_by: null,
    hook_source: null,
    created_at: NOW,
    updated_at: NOW,
  };
}

/** The state a verb's move from `state` asks for: one it may reach, else one it never reaches. */
function targetOf(verb: TaskVerb, state: TaskState): TaskState {
  const rule = verbRule(verb);
  if (rule.to === 'same') return state;
  return rule.to[0]!;
}

function matchOf(verb: TaskVerb) {
  return ['heartbeat', 'commit', 'release', 'settle_held_call', 'lease_lapse'].includes(verb)
    ? { claim_id: 'claim_1' }
    : {};
}

function dueOf(verb: TaskVerb) {
  if (verb === 'lease_lapse') return { due: 'lease_until' as const };
  if (verb.endsWith('_expiry') || verb === 'hook_timeout') return { due: 'deadline_at' as const };
  return {};
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`state machine on a real store (${backend.name})`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    let workspaceId: string;
    let counter = 0;

    beforeAll(async () => {
      const opened = await backend.open(() => NOW);
      store = opened.store;
      dispose = opened.dispose;
      workspaceId = (await createWorkspace(store, 'machine')).id;
    });
    afterAll(async () => {
      await dispose();
    });

    async function seed(runState: RunTable['state'], state: TaskState, verb: TaskVerb) {
      counter += 1;
      const run = runRow(`run_${counter}`, workspaceId, runState);
      const row = taskRow(run, state, verb);
      await store.transaction(async (tx) => {
        await insertRunRow(tx, run);
        await insertTask(tx, row);
      });
      return { run, row };
    }

    async function snapshot(runId: string) {
      const task = await store.db
        .selectFrom('tasks')
        .selectAll()
        .where('run_id', '=', runId)
        .execute();
      const events = await store.db
        .selectFrom('run_events')
        .select(['type', 'data'])
        .where('run_id', '=', runId)
        .execute();
      return { task, events };
    }

    async function attempt(verb: TaskVerb, run: RunTable, from: TaskState) {
      const rule = verbRule(verb);
      const to = targetOf(verb, from);
      return store
        .transaction((tx) =>
          moveTask(tx, {
            verb,
            run,
            key: 't1',
            // biome-ignore lint/suspicious/noExplicitAny: the test drives every verb through one call.
            to: to as any,
            ...matchOf(verb),
            ...dueOf(verb),
            set: { decided_by: 'test' },
            // biome-ignore lint/suspicious/noExplicitAny: the verb's first declared event.
            event: rule.emits[0] ? { type: rule.emits[0] as any } : null,
            principal: 'test',
          }),
        )
        .then(
          (row) => ({ ok: true as const, row }),
          (error: unknown) => ({ ok: false as const, error }),
        );
    }

    describe('the task state machine table', () => {
      it('names only known states and events, and every verb of the issue', () => {
        expect(TASK_VERB_NAMES).toEqual([
          'plant',
          'approve',
          'deny',
          'resolve',
          'retry',
          'claim',
          'heartbeat',
          'commit',
          'release',
          'settle_held_call',
          'lease_lapse',
          'fence',
          'guardrail_refusal',
          'park_expiry',
          'question_expiry',
          'hook_timeout',
          'cancel',
          'readdress',
          'fail_hook',
          'correct_outcome',
          'late_report',
          'summarize',
        ]);
        for (const verb of TASK_VERB_NAMES) {
          const rule = verbRule(verb);
          for (const state of rule.from) expect(TASK_STATES).toContain(state);
          if (rule.to !== 'same') for (const state of rule.to) expect(TASK_STATES).toContain(state);
          for (const type of rule.emits) expect(EVENT_TYPES).toContain(type);
        }
      });

      it("names the kernel's settling of a hooked call held on an ended run as a kernel verb, not the claim holder's commit", () => {
        expect(verbRule('commit').actor).toBe('executor');
        expect(verbRule('settle_held_call')).toMatchObject({
          actor: 'kernel',
          from: ['claimed'],
          to: ['failed'],
          run: 'any',
          kinds: ['tool'],
        });
      });

      const moving = TASK_VERB_NAMES.filter((verb) => verb !== 'plant');
      for (const verb of moving) {
        for (const state of TASK_STATES) {
          const allowed = (TASK_VERBS[verb].from as readonly TaskState[]).includes(state);
          it(`${verb} from ${state}: ${allowed ? 'moves and emits' : '409, nothing changes'}`, async () => {
            const { run, row } = await seed('running', state, verb);
            const before = await snapshot(run.id);
            const outcome = await attempt(verb, run, state);
            const after = await snapshot(run.id);
            let checked: unknown = null;
            try {
              checkMove(verb, row, run);
            } catch (error) {
              checked = error;
            }
            if (allowed) {
              expect(outcome.ok).toBe(true);
              expect(checked).toBeNull();
              const to = targetOf(verb, state);
              expect(mayReach(verb, state, to)).toBe(true);
              expect(after.task[0]?.state).toBe(to);
              expect(after.task[0]?.decided_by).toBe('test');
              const emitted = verbRule(verb).emits[0];
              expect(after.events.map((e) => e.type)).toEqual(emitted ? [emitted] : []);
              if (emitted) expect(JSON.parse(after.events[0]!.data)).toMatchObject({ state: to });
            } else {
              expect(outcome.ok).toBe(false);
              const error = outcome.ok ? null : outcome.error;
              expect(isAirlockError(error) && error.status).toBe(409);
              expect(isAirlockError(error) && error.code).toBe(verbRule(verb).refusal);
              expect(isAirlockError(checked) && checked.code).toBe(verbRule(verb).refusal);
              expect(after).toEqual(before);
            }
          });
        }
      }

      for (const verb of TASK_VERB_NAMES.filter((v) => verbRule(v).run === 'running')) {
        for (const runState of RUN_STATES.filter((s) => s !== 'running')) {
          it(`${verb} on a ${runState} run: 409 run_not_running, nothing changes`, async () => {
            const from = verbRule(verb).from[0]!;
            const { run } = await seed(runState, from, verb);
            const before = await snapshot(run.id);
            if (verb === 'plant') {
              const fresh = { ...taskRow(run, 'runnable', verb), key: 't2' };
              const planted = store.transaction((tx) =>
                plantRow(tx, run, fresh, {
                  created: { data: CREATED, principal: null },
                  outcome: GRANTED,
                }),
              );
              await expect(planted).rejects.toMatchObject({ code: 'run_not_running' });
            } else {
              const outcome = await attempt(verb, run, from);
              expect(outcome.ok ? null : outcome.error).toMatchObject({ code: 'run_not_running' });
            }
            expect(await snapshot(run.id)).toEqual(before);
          });
        }
      }

      it('plant writes a new row only in a state the approval stage may leave it in', async () => {
        for (const state of TASK_STATES) {
          const { run } = await seed('running', 'succeeded', 'plant');
          const fresh = { ...taskRow(run, state, 'plant'), key: 't2' };
          const planted = store
            .transaction((tx) =>
              plantRow(tx, run, fresh, {
                created: { data: CREATED, principal: null },
                outcome: GRANTED,
              }),
            )
            .then(
              () => true,
              () => false,
            );
          const allowed = mayReach('plant', 'ready', state);
          expect([state, await planted]).toEqual([state, allowed]);
          const after = await snapshot(run.id);
          expect(after.task.map((t) => t.key)).toEqual(allowed ? ['t1', 't2'] : ['t1']);
          expect(after.events.map((e) => e.type)).toEqual(
            allowed ? ['task.created', 'task.granted'] : [],
          );
        }
      });
    });

    describe('run settlement', () => {
      const row = (over: Partial<SettlementRow>): SettlementRow => ({
        key: 't1',
        state: 'succeeded',
        on_failure: 'continue',
        error_code: null,
        origin: 'model',
        round: 1,
        kind: 'tool',
        hook_source: null,
        ...over,
      });
      const run = { round: 1 };

      it('a round settles when its model rows settled and nothing holds', () => {
        expect(roundSettled(run, [])).toBe(true);
        expect(roundSettled(run, [row({ state: 'claimed' })])).toBe(false);
        expect(roundSettled(run, [row({ state: 'runnable', round: 0 })])).toBe(true);
        expect(roundSettled(run, [row({ state: 'needs_approval', origin: 'author' })])).toBe(true);
      });

      it('a hold of any origin holds the run', () => {
        for (const origin of ['model', 'author', 'kernel'] as const) {
          const held = row({ origin, state: 'timed_out', on_failure: 'hold', error_code: 'x' });
          expect(roundSettled(run, [held])).toBe(false);
        }
      });

      it('an answer waits for every open or holding row of every origin (SQL agrees with holds())', async () => {
        const cases: Partial<TaskTable>[] = [];
        for (const state of TASK_STATES) {
          for (const on_failure of ['continue', 'hold'] as const) {
            for (const error_code of [null, 'approval_denied', 'tool_failed']) {
              for (const kind of ['tool', 'hook'] as const) {
                for (const origin of ['model', 'author', 'kernel'] as const) {
                  for (const hook_source of [null, 'stop:0']) {
                    cases.push({ state, on_failure, error_code, kind, origin, hook_source });
                  }
                }
              }
            }
          }
        }
        for (const fields of cases) {
          const { run } = await seed('running', 'succeeded', 'cancel');
          const seeded = { ...taskRow(run, 'succeeded', 'cancel'), ...fields, round: 0 };
          await store.db.updateTable('tasks').set(seeded).where('run_id', '=', run.id).execute();
          const open = await store.transaction((tx) => openObligation(tx, run, 'stop:0'));
          const expected =
            seeded.hook_source !== 'stop:0' && (holds(seeded) || !isTerminal(seeded.state));
          expect([fields, open]).toEqual([fields, expected]);
        }
      });
    });
  });
}

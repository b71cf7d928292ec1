import type { OperationName } from '@airlock/core';
import type { ThingName, WorkspaceThings } from './two-workspaces.js';

/**
 * One request a credential of workspace A sends naming workspace B's things:
 * `names` lists the things it names; `input` builds it from B's things (or
 * from made-up ones of the same form, which must be answered alike), given
 * the caller's own workspace id and things.
 */
export interface Probe {
  names: readonly ThingName[];
  input(
    things: WorkspaceThings,
    own: { workspace: string; things: WorkspaceThings },
  ): Record<string, unknown>;
}

const scriptedFinal = { kind: 'scripted', rounds: [{ final: 'done' }] };

const ws = (own: { workspace: string }) => ({ workspace_id: own.workspace });

/**
 * What each operation is probed with. Keyed by every operation name, so a new
 * operation without a row fails to compile (and the test fails on a name the
 * server serves that this table does not hold). An empty `names` is an
 * operation that names nothing of another workspace (it creates, or reads
 * the caller's own): it is still called, and its answer must hold nothing of B's.
 */
export const PROBES: Readonly<Record<OperationName, readonly Probe[]>> = {
  'profile.put': [{ names: [], input: () => ({ approval_mode: 'ask' }) }],
  'profile.get': [{ names: [], input: () => ({}) }],
  'conversations.create': [{ names: [], input: () => ({}) }],
  'conversations.input': [
    {
      names: ['conversation'],
      input: (t) => ({ conversation_id: t.conversation, input: 'x', provider: scriptedFinal }),
    },
  ],
  'runs.regenerate': [{ names: ['turnRun'], input: (t) => ({ run_id: t.turnRun }) }],
  'runs.create': [
    {
      names: [],
      input: (_, own) => ({
        ...ws(own),
        approval_mode: 'bypass',
        input: 'x',
        provider: scriptedFinal,
      }),
    },
  ],
  'runs.list': [
    { names: [], input: (_, own) => ({ ...ws(own), limit: 1000 }) },
    { names: ['runsCursor'], input: (t, own) => ({ ...ws(own), cursor: t.runsCursor }) },
  ],
  'runs.get': [{ names: ['parkedRun'], input: (t, own) => ({ ...ws(own), run_id: t.parkedRun }) }],
  'runs.stop': [{ names: ['parkedRun'], input: (t, own) => ({ ...ws(own), run_id: t.parkedRun }) }],
  'runs.abandon': [
    { names: ['parkedRun'], input: (t, own) => ({ ...ws(own), run_id: t.parkedRun }) },
  ],
  'runs.calls': [
    {
      names: ['gatewayRun'],
      input: (t, own) => ({ ...ws(own), run_id: t.gatewayRun, calls: [{ name: 'ls' }] }),
    },
    {
      names: ['gatewayRun'],
      input: (t, own) => ({ ...ws(own), run_id: t.gatewayRun, final: 'done' }),
    },
  ],
  'runs.cancelCall': [
    {
      names: ['parkedRun'],
      input: (t, own) => ({ ...ws(own), run_id: t.parkedRun, task_key: 't1' }),
    },
  ],
  'hooks.event': [
    {
      names: ['session'],
      input: (t) => ({ agent: 'claude-code', session_id: t.session, event: 'session_start' }),
    },
    {
      names: ['parkedRun'],
      input: (t) => ({
        agent: 'claude-code',
        session_id: 'probe-session',
        event: 'pre_tool',
        run_id: t.parkedRun,
        task_key: 't1',
        tool_name: 'deploy',
        look: true,
      }),
    },
    {
      names: ['parkedRun'],
      input: (t) => ({
        agent: 'claude-code',
        session_id: 'probe-session',
        event: 'pre_tool',
        run_id: t.parkedRun,
        task_key: 't1',
        tool_name: 'deploy',
      }),
    },
  ],
  'hooks.claudeCode': [
    {
      names: ['session'],
      input: (t) => ({
        hook_options: 'wait-0',
        session_id: t.session,
        hook_event_name: 'SessionStart',
      }),
    },
  ],
  'hooks.codex': [
    {
      names: ['session'],
      input: (t) => ({
        hook_options: 'wait-0',
        session_id: t.session,
        hook_event_name: 'SessionStart',
      }),
    },
  ],
  'hooks.gemini': [
    {
      names: ['session'],
      input: (t) => ({
        hook_options: 'wait-0',
        session_id: t.session,
        hook_event_name: 'SessionStart',
      }),
    },
  ],
  'runs.events': [
    { names: ['parkedRun'], input: (t, own) => ({ ...ws(own), run_id: t.parkedRun }) },
  ],
  'audit.run': [{ names: ['parkedRun'], input: (t, own) => ({ ...ws(own), run_id: t.parkedRun }) }],
  'audit.export': [{ names: [], input: (_, own) => ({ ...ws(own) }) }],
  'retention.get': [{ names: [], input: (_, own) => ({ ...ws(own) }) }],
  'retention.put': [
    {
      names: [],
      input: (_, own) => ({ ...ws(own), events_days: null, runs_days: null, audit_days: null }),
    },
  ],
  'tasks.list': [
    { names: ['parkedRun'], input: (t, own) => ({ ...ws(own), run_id: t.parkedRun }) },
    {
      names: ['tasksCursor'],
      input: (t, own) => ({ ...ws(own), run_id: own.things.parkedRun, cursor: t.tasksCursor }),
    },
  ],
  'tasks.get': [
    {
      names: ['parkedRun'],
      input: (t, own) => ({ ...ws(own), run_id: t.parkedRun, task_key: 't1' }),
    },
  ],
  'tasks.append': [
    {
      names: ['parkedRun'],
      input: (t, own) => ({ ...ws(own), run_id: t.parkedRun, tool_name: 'ls' }),
    },
  ],
  'decisions.approve': [
    {
      names: ['parkedRun', 'version'],
      input: (t, own) => ({ ...ws(own), run_id: t.parkedRun, task_key: 't1', version: t.version }),
    },
    {
      names: ['parkedRun'],
      input: (t, own) => ({ ...ws(own), run_id: t.parkedRun, task_key: 't1' }),
    },
  ],
  'decisions.deny': [
    {
      names: ['parkedRun'],
      input: (t, own) => ({ ...ws(own), run_id: t.parkedRun, task_key: 't1', reason: 'no' }),
    },
  ],
  'decisions.resolve': [
    {
      names: ['parkedRun'],
      input: (t, own) => ({ ...ws(own), run_id: t.parkedRun, task_key: 't1', content: 'Now' }),
    },
  ],
  'decisions.retry': [
    {
      names: ['parkedRun'],
      input: (t, own) => ({ ...ws(own), run_id: t.parkedRun, task_key: 't1' }),
    },
  ],
  'decisions.list': [
    { names: [], input: (_, own) => ({ ...ws(own) }) },
    {
      names: ['decisionsCursor'],
      input: (t, own) => ({ ...ws(own), cursor: t.decisionsCursor }),
    },
  ],
  'notifications.list': [
    { names: ['parkedRun'], input: (t, own) => ({ ...ws(own), run_id: t.parkedRun }) },
  ],
  'notifications.redeliver': [
    { names: ['delivery'], input: (t, own) => ({ ...ws(own), delivery_id: t.delivery }) },
  ],
  'approvalPolicy.get': [{ names: [], input: (_, own) => ({ ...ws(own) }) }],
  'approvalPolicy.replace': [
    {
      names: ['member'],
      input: (t, own) => ({
        ...ws(own),
        policy: { rules: [{ tool: 'deploy', approvers: [t.member.slice('member:'.length)] }] },
      }),
    },
    {
      // The caller's own member beside the other's: only the other's is a problem.
      names: ['member'],
      input: (t, own) => ({
        ...ws(own),
        policy: {
          groups: { pair: [own.things.member, t.member].map((m) => m.slice('member:'.length)) },
          rules: [{ tool: 'deploy', approvers: ['group:pair'], required: 2 }],
        },
      }),
    },
  ],
  'overlays.get': [
    {
      names: ['application'],
      input: (t, own) => ({ ...ws(own), scope: 'project', owner_id: t.application }),
    },
    {
      names: ['conversation'],
      input: (t, own) => ({ ...ws(own), scope: 'conversation', owner_id: t.conversation }),
    },
    {
      names: ['member'],
      input: (t, own) => ({ ...ws(own), scope: 'user', owner_id: t.member }),
    },
  ],
  'overlays.replace': [
    {
      names: ['application'],
      input: (t, own) => ({
        ...ws(own),
        scope: 'project',
        owner_id: t.application,
        expected_digest: 'x',
        groups: [],
      }),
    },
    {
      names: ['conversation'],
      input: (t, own) => ({
        ...ws(own),
        scope: 'conversation',
        owner_id: t.conversation,
        expected_digest: 'x',
        groups: [],
      }),
    },
  ],
  'overlays.trust': [
    {
      names: ['application'],
      input: (t, own) => ({ ...ws(own), owner_id: t.application, digest: 'x' }),
    },
  ],
  'executor.inbox': [{ names: [], input: () => ({}) }],
  'executor.claim': [
    {
      names: ['runnableRun'],
      input: (t) => ({ run_id: t.runnableRun, task_key: 't1', lease_ms: 60_000 }),
    },
  ],
  'executor.claimNext': [{ names: [], input: () => ({ lease_ms: 60_000 }) }],
  'executor.heartbeat': [
    {
      names: ['claimedRun', 'claim'],
      input: (t) => ({ run_id: t.claimedRun, task_key: 't1', claim_id: t.claim, lease_ms: 60_000 }),
    },
  ],
  'executor.release': [
    {
      names: ['claimedRun', 'claim'],
      input: (t) => ({ run_id: t.claimedRun, task_key: 't1', claim_id: t.claim }),
    },
  ],
  'executor.commit': [
    {
      names: ['claimedRun', 'claim'],
      input: (t) => ({
        run_id: t.claimedRun,
        task_key: 't1',
        claim_id: t.claim,
        outcome: 'succeeded',
        result: 'x',
      }),
    },
  ],
  'credentials.create': [
    {
      names: ['application'],
      input: (t, own) => ({ ...ws(own), kind: 'agent', agent_application_id: t.application }),
    },
  ],
  'credentials.list': [{ names: [], input: (_, own) => ({ ...ws(own), include_revoked: true }) }],
  'credentials.self': [{ names: [], input: (_, own) => ({ ...ws(own) }) }],
  'credentials.revoke': [
    { names: ['credential'], input: (t, own) => ({ ...ws(own), credential_id: t.credential }) },
    { names: ['token'], input: (t, own) => ({ ...ws(own), credential_id: t.token }) },
  ],
  'credentials.label': [
    {
      names: ['credential'],
      input: (t, own) => ({ ...ws(own), credential_id: t.credential, label: 'taken' }),
    },
  ],
  'agentApplications.create': [{ names: [], input: (_, own) => ({ ...ws(own), name: 'probe' }) }],
  'agentApplications.list': [{ names: [], input: (_, own) => ({ ...ws(own) }) }],
  'agentApplications.remove': [
    {
      names: ['application'],
      input: (t, own) => ({ ...ws(own), agent_application_id: t.application }),
    },
  ],
};

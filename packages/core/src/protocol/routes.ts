/**
 * Where each operation and live subscription of the wire is reached: its HTTP method and REST
 * path (and, for an answer REST sends as JSON lines, the array field it streams). Plain data with
 * no schema, so that a client that only sends requests (the SDK, the web inbox) does not load the
 * Zod schemas of every contract; the contracts (operations/*.ts, subscriptions.ts) take their
 * route from here.
 */

/** How one operation is reached. */
export interface OperationRoute {
  readonly method: 'GET' | 'POST' | 'PUT';
  /** REST path with `{param}` segments named like input fields. */
  readonly path: string;
  /**
   * The output's array field that REST answers as JSON lines
   * (`application/x-ndjson`, one element a line); tRPC answers the object.
   */
  readonly jsonLines?: string;
}

/**
 * The most tool names one claim (`executor.claimNext`'s `tool_names`) may name: the kernel
 * refuses a longer list, so an executor serving more tools claims for them a share at a time.
 */
export const CLAIM_TOOL_NAMES_MAX = 256;

/** Every operation's route by its dotted name. */
export const OPERATION_ROUTES = {
  'profile.put': { method: 'PUT', path: '/agent_api/v1/profile/configuration' },
  'profile.get': { method: 'GET', path: '/agent_api/v1/profile/configuration' },
  'conversations.create': { method: 'POST', path: '/agent_api/v1/conversations' },
  'conversations.input': {
    method: 'POST',
    path: '/agent_api/v1/conversations/{conversation_id}/inputs',
  },
  'runs.regenerate': { method: 'POST', path: '/agent_api/v1/runs/{run_id}/regenerate' },
  'runs.create': { method: 'POST', path: '/api/v1/workspaces/{workspace_id}/runs' },
  'runs.list': { method: 'GET', path: '/api/v1/workspaces/{workspace_id}/runs' },
  'runs.get': { method: 'GET', path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}' },
  'runs.stop': { method: 'POST', path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/stop' },
  'runs.abandon': {
    method: 'POST',
    path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/abandon',
  },
  'runs.calls': { method: 'POST', path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/calls' },
  'runs.cancelCall': {
    method: 'POST',
    path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/calls/{task_key}/cancel',
  },
  'hooks.event': { method: 'POST', path: '/agent_api/v1/hooks/events' },
  'hooks.claudeCode': { method: 'POST', path: '/agent_api/v1/hooks/claude-code/{hook_options}' },
  'hooks.codex': { method: 'POST', path: '/agent_api/v1/hooks/codex/{hook_options}' },
  'hooks.gemini': { method: 'POST', path: '/agent_api/v1/hooks/gemini/{hook_options}' },
  'runs.events': { method: 'GET', path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/events' },
  'audit.run': {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/audit',
    jsonLines: 'records',
  },
  'audit.export': {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace_id}/audit',
    jsonLines: 'records',
  },
  'retention.get': { method: 'GET', path: '/api/v1/workspaces/{workspace_id}/retention' },
  'retention.put': { method: 'PUT', path: '/api/v1/workspaces/{workspace_id}/retention' },
  'tasks.list': { method: 'GET', path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks' },
  'tasks.get': {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks/{task_key}',
  },
  'tasks.append': { method: 'POST', path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks' },
  'decisions.approve': {
    method: 'POST',
    path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks/{task_key}/approve',
  },
  'decisions.deny': {
    method: 'POST',
    path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks/{task_key}/deny',
  },
  'decisions.resolve': {
    method: 'POST',
    path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks/{task_key}/resolution',
  },
  'decisions.retry': {
    method: 'POST',
    path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks/{task_key}/retry',
  },
  'decisions.list': { method: 'GET', path: '/api/v1/workspaces/{workspace_id}/decisions' },
  'notifications.list': { method: 'GET', path: '/api/v1/workspaces/{workspace_id}/notifications' },
  'notifications.redeliver': {
    method: 'POST',
    path: '/api/v1/workspaces/{workspace_id}/notifications/{delivery_id}/redeliver',
  },
  'approvalPolicy.get': {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace_id}/approval_policy',
  },
  'approvalPolicy.replace': {
    method: 'PUT',
    path: '/api/v1/workspaces/{workspace_id}/approval_policy',
  },
  'overlays.get': {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace_id}/overlays/{scope}/{owner_id}',
  },
  'overlays.replace': {
    method: 'PUT',
    path: '/api/v1/workspaces/{workspace_id}/overlays/{scope}/{owner_id}',
  },
  'overlays.trust': {
    method: 'POST',
    path: '/api/v1/workspaces/{workspace_id}/overlays/project/{owner_id}/trust',
  },
  'executor.inbox': { method: 'GET', path: '/executor_api/v1/inbox' },
  'executor.claim': {
    method: 'POST',
    path: '/executor_api/v1/runs/{run_id}/tasks/{task_key}/claim',
  },
  'executor.claimNext': { method: 'POST', path: '/executor_api/v1/claim' },
  'executor.heartbeat': {
    method: 'POST',
    path: '/executor_api/v1/runs/{run_id}/tasks/{task_key}/heartbeat',
  },
  'executor.commit': {
    method: 'POST',
    path: '/executor_api/v1/runs/{run_id}/tasks/{task_key}/commit',
  },
  'executor.release': {
    method: 'POST',
    path: '/executor_api/v1/runs/{run_id}/tasks/{task_key}/release',
  },
  'credentials.create': { method: 'POST', path: '/api/v1/workspaces/{workspace_id}/credentials' },
  'credentials.list': { method: 'GET', path: '/api/v1/workspaces/{workspace_id}/credentials' },
  'credentials.self': { method: 'GET', path: '/api/v1/workspaces/{workspace_id}/credentials/self' },
  'credentials.revoke': {
    method: 'POST',
    path: '/api/v1/workspaces/{workspace_id}/credentials/{credential_id}/revoke',
  },
  'credentials.label': {
    method: 'POST',
    path: '/api/v1/workspaces/{workspace_id}/credentials/{credential_id}/label',
  },
  'agentApplications.create': {
    method: 'POST',
    path: '/api/v1/workspaces/{workspace_id}/agent_applications',
  },
  'agentApplications.list': {
    method: 'GET',
    path: '/api/v1/workspaces/{workspace_id}/agent_applications',
  },
  'agentApplications.remove': {
    method: 'POST',
    path: '/api/v1/workspaces/{workspace_id}/agent_applications/{agent_application_id}/remove',
  },
} as const satisfies Record<string, OperationRoute>;

/** The WebSocket (or tRPC subscription) path of each live subscription. */
export const SUBSCRIPTION_PATHS = {
  feed: '/api/v1/workspaces/{workspace_id}/feed',
  'executor.cable': '/executor_api/v1/cable',
  'runs.feed': '/trpc/runs.feed',
} as const;

/** An operation's name and route, for its contract to spread. */
export function operationRoute<const N extends keyof typeof OPERATION_ROUTES>(
  name: N,
): { readonly name: N } & (typeof OPERATION_ROUTES)[N] {
  return { name, ...OPERATION_ROUTES[name] };
}

/** The `{param}` names in a REST path. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!);
}

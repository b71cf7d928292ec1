import type { IncomingMessage } from 'node:http';
import { OWN_WORKSPACE } from '@airlock/core';
import { bearerTokenOf } from '@airlock/core/wire';
import { AirlockError } from '../errors.js';
import { type ApplicationFence, fencedIn } from '../feed/fence.js';
import type { Kernel } from '../kernel/kernel.js';
import { requireAdmin } from '../kernel/verbs/member-roles.js';
import { authenticate, credentialIsActive, type Principal } from '../store/accounts.js';
import { applicationOfRun } from '../store/runs.js';
import { type AuthFailureThrottle, peerOf } from './auth-throttle.js';
import { type Operation, pathParams } from './operation.js';

/** Reads the bearer token of an Authorization header (or a `access_token` fallback). */
export function bearerToken(header: string | undefined, fallback?: string | null): string | null {
  return header ? bearerTokenOf(header) : (fallback ?? null);
}

/** Where a request came from and the throttle its failed authentications count against. */
export interface AuthPeer {
  throttle: AuthFailureThrottle;
  /** The peer's address, as {@link peerOf} names it. */
  peer: string;
}

/**
 * Authenticates a token. A failure counts against the peer's throttle, when
 * one is given; a valid token is never refused by it.
 * @throws AirlockError unauthenticated (401) when missing, unknown or revoked;
 *   RateLimitedError (429) instead when the peer failed too often.
 */
export async function authenticateToken(
  kernel: Kernel,
  token: string | null,
  from?: AuthPeer | null,
): Promise<Principal> {
  const principal = token ? await authenticate(kernel.context.store, token) : null;
  if (principal) return principal;
  from?.throttle.failed(from.peer);
  if (!token)
    throw new AirlockError('unauthenticated', 'send a bearer token: Authorization: Bearer <token>');
  throw new AirlockError('unauthenticated', 'the token is unknown or revoked');
}

/** The outcome of authenticating a request, taken before its body is read. */
export type Authentication =
  | { principal: Principal; error: null; at: number }
  | { principal: null; error: AirlockError; at: number };

/**
 * Authenticates a request's bearer token as {@link authenticateToken} does,
 * with the peer's throttle, and answers the failure as data instead of throwing it.
 */
export async function authenticateRequest(
  kernel: Kernel,
  req: IncomingMessage,
  throttle: AuthFailureThrottle | null,
): Promise<Authentication> {
  try {
    const principal = await authenticateToken(
      kernel,
      bearerToken(req.headers.authorization),
      throttle ? { throttle, peer: peerOf(req) } : null,
    );
    return { principal, error: null, at: performance.now() };
  } catch (error) {
    return {
      at: performance.now(),
      principal: null,
      error: error instanceof AirlockError ? error : new AirlockError('internal', 'internal error'),
    };
  }
}

/**
 * How long a request may take from its authentication (before its body is
 * read) to its operation before the credential is read again. A client can
 * hold a request open while it sends its body slowly; without the second
 * read, a credential revoked meanwhile would still act once the body
 * arrived. A request within the bound is as one that crossed the revocation
 * in flight, and costs no extra read.
 */
export const AUTH_RECHECK_AFTER_MS = 1000;

/**
 * Refuses a request whose credential was revoked (or whose application was
 * removed) since it was authenticated at `authenticatedAt` (`performance.now()`),
 * when that was more than {@link AUTH_RECHECK_AFTER_MS} ago.
 * @throws AirlockError unauthenticated (401).
 */
export async function checkStillActive(
  kernel: Kernel,
  principal: Principal,
  authenticatedAt: number | undefined,
): Promise<void> {
  if (authenticatedAt === undefined) return;
  if (performance.now() - authenticatedAt < AUTH_RECHECK_AFTER_MS) return;
  if (!(await credentialIsActive(kernel.context.store, principal.credential_id))) {
    throw new AirlockError('unauthenticated', 'the token is unknown or revoked');
  }
}

const PLANE_NAMES = { agent: 'an agent', executor: 'an executor', member: 'a member' } as const;

/**
 * The operations that take {@link OWN_WORKSPACE}: those that answer about the
 * calling credential alone, so naming no workspace reveals nothing of any.
 */
const OWN_WORKSPACE_OPERATIONS: ReadonlySet<string> = new Set(['credentials.self']);

/**
 * Refuses a credential of the wrong plane, of another workspace, or a member
 * credential without the role the operation needs, before any row is read.
 * `credentials.self` also takes {@link OWN_WORKSPACE} as the workspace.
 * @throws AirlockError forbidden (403), admin_required (403).
 */
export function checkAccess(
  operation: Pick<Operation, 'name' | 'planes' | 'role'>,
  principal: Principal,
  input: unknown,
): void {
  if (!operation.planes.includes(principal.kind)) {
    const wanted = operation.planes.map((p) => PLANE_NAMES[p]).join(' or ');
    throw new AirlockError(
      'forbidden',
      `${operation.name} needs ${wanted} credential; this is ${PLANE_NAMES[principal.kind]} credential`,
    );
  }
  const workspace = (input as { workspace_id?: unknown } | null)?.workspace_id;
  const ownWorkspace = workspace === OWN_WORKSPACE && OWN_WORKSPACE_OPERATIONS.has(operation.name);
  if (typeof workspace === 'string' && workspace !== principal.workspace_id && !ownWorkspace) {
    throw new AirlockError('forbidden', 'this credential belongs to another workspace');
  }
  if (operation.role === 'admin') requireAdmin(principal, operation.name);
}

/**
 * Whose runs a credential acts on: an agent credential its own application's
 * runs only; an executor its application's and the runs of no application
 * (which any executor of the workspace may claim); a member every run of the
 * workspace (`null`: no fence).
 */
export function fenceOf(principal: Principal): ApplicationFence | null {
  if (principal.kind === 'member' || principal.agent_application_id === null) return null;
  return {
    applicationId: principal.agent_application_id,
    unowned: principal.kind === 'executor',
  };
}

/**
 * Refuses an agent credential an operation on another application's run, as
 * if the run did not exist (so it learns nothing of it). Executor operations
 * are fenced by the kernel's claim rules, members act on the whole workspace.
 * With `operation`, only one whose path names the run is checked here: a
 * `run_id` in a body (a hooked agent's pre_tool asking about a call again)
 * names a turn of the caller's own session, which the kernel checks and
 * refuses as it refuses a run id nobody holds; a `run_not_found` here would
 * tell the agent that another application holds that run.
 * @throws AirlockError run_not_found (404).
 */
export async function checkRunFence(
  kernel: Kernel,
  principal: Principal,
  input: unknown,
  operation?: Pick<Operation, 'path'>,
): Promise<void> {
  if (principal.kind !== 'agent') return;
  if (operation && !pathParams(operation.path).includes('run_id')) return;
  const runId = (input as { run_id?: unknown } | null)?.run_id;
  if (typeof runId !== 'string') return;
  const application = await applicationOfRun(kernel.context.store, principal.workspace_id, runId);
  if (application !== undefined && !fencedIn(fenceOf(principal)!, application)) {
    throw new AirlockError('run_not_found', `no run ${runId} in this workspace`);
  }
}

/**
 * Refuses a feed of one run the workspace does not hold, as the run's event
 * listing does: an empty feed there would tell an agent credential that a
 * run id it refuses (another application's) exists. Checked after the resume
 * position, so a run retention pruned still tells its reader to resynchronise.
 * @throws AirlockError run_not_found (404).
 */
export async function checkFeedRun(
  kernel: Kernel,
  principal: Principal,
  runId: string | null,
): Promise<void> {
  if (runId === null) return;
  const application = await applicationOfRun(kernel.context.store, principal.workspace_id, runId);
  if (application === undefined) {
    throw new AirlockError('run_not_found', `no run ${runId} in this workspace`);
  }
}

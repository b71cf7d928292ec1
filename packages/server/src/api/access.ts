import { AirlockError } from '../kernel/errors.js';
import type { Kernel } from '../kernel/kernel.js';
import { authenticate, type Principal } from '../store/accounts.js';
import type { Operation } from './operation.js';

/** Reads the bearer token of an Authorization header (or a `access_token` fallback). */
export function bearerToken(header: string | undefined, fallback?: string | null): string | null {
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? match[1]! : null;
  }
  return fallback ?? null;
}

/**
 * Authenticates a token.
 * @throws AirlockError unauthenticated (401) when missing, unknown or revoked.
 */
export async function authenticateToken(kernel: Kernel, token: string | null): Promise<Principal> {
  if (!token)
    throw new AirlockError('unauthenticated', 'send a bearer token: Authorization: Bearer <token>');
  const principal = await authenticate(kernel.context.store, token);
  if (!principal) throw new AirlockError('unauthenticated', 'the token is unknown or revoked');
  return principal;
}

/** Who may open the lifecycle feed (WebSocket and the tRPC subscription). */
export const FEED_ACCESS: Pick<Operation, 'name' | 'planes'> = {
  name: 'runs.feed',
  planes: ['agent', 'member'],
};

/** Who may open the executor cable. */
export const CABLE_ACCESS: Pick<Operation, 'name' | 'planes'> = {
  name: 'executor.cable',
  planes: ['executor'],
};

const PLANE_NAMES = { agent: 'an agent', executor: 'an executor', member: 'a member' } as const;

/**
 * Refuses a credential of the wrong plane or of another workspace, before any row is read.
 * @throws AirlockError forbidden (403).
 */
export function checkAccess(
  operation: Pick<Operation, 'name' | 'planes'>,
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
  if (typeof workspace === 'string' && workspace !== principal.workspace_id) {
    throw new AirlockError('forbidden', 'this credential belongs to another workspace');
  }
}

import { AirlockError } from '../../errors.js';
import type { Principal } from '../../store/accounts.js';

/**
 * Refuses a member credential that is not an admin, before anything changes:
 * what governs the workspace (credentials, applications, the approval and
 * retention policies, workspace-wide overlays) is an admin's; deciding calls
 * is every member's. Agent and executor credentials are the planes' business.
 * @throws AirlockError admin_required (403), naming what was refused and the role it needs.
 */
export function requireAdmin(principal: Principal, what: string): void {
  if (principal.kind !== 'member' || principal.role === 'admin') return;
  throw new AirlockError(
    'admin_required',
    `${what} needs a member credential with role admin; this credential's role is ${principal.role ?? 'none'}`,
  );
}

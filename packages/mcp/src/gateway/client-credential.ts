import type { ApprovalMode, ApprovalRule } from '@airlock/core';

/** The plane of a client credential, read from its prefix (`alk_agent_…`, `alk_member_…`). */
export function credentialKind(token: string): 'agent' | 'member' | null {
  const match = /^alk_(agent|member)_/.exec(token);
  return match ? (match[1] as 'agent' | 'member') : null;
}

/**
 * True when a token reads as a credential of the executor plane
 * (`alk_executor_…`): a credential, only not one a gateway client may use,
 * where a token of no plane at all is no credential.
 */
export function isExecutorCredential(token: string): boolean {
  return token.startsWith('alk_executor_');
}

/** The mode and rules of a member's gateway runs (an agent's runs take its profile's). */
export interface MemberRunPolicy {
  approval_mode: ApprovalMode;
  approval_rules: ApprovalRule[];
}

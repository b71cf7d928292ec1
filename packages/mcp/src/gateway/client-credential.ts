import type { ApprovalMode, ApprovalRule } from '@airlock/core';

/** The plane of a client credential, read from its prefix (`alk_agent_…`, `alk_member_…`). */
export function credentialKind(token: string): 'agent' | 'member' | null {
  const match = /^alk_(agent|member)_/.exec(token);
  return match ? (match[1] as 'agent' | 'member') : null;
}

/** The mode and rules of a member's gateway runs (an agent's runs take its profile's). */
export interface MemberRunPolicy {
  approval_mode: ApprovalMode;
  approval_rules: ApprovalRule[];
}

/** The plane of a client credential, read from its prefix (`alk_agent_…`, `alk_member_…`). */
export function credentialKind(token: string): 'agent' | 'member' | null {
  const match = /^alk_(agent|member)_/.exec(token);
  return match ? (match[1] as 'agent' | 'member') : null;
}

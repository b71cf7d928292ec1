/** The one problem this check reports (config.ts's ConfigProblem; not imported: no circle). */
interface MappingProblem {
  code: 'invalid_value';
  pointer: string;
  message: string;
}

/** What the check reads of a channel: its kind, workspace and who it maps to which member. */
interface MappingChannel {
  kind: string;
  workspace: string;
  name: string;
  members?: Record<string, string> | undefined;
  action_links?: { members: Record<string, string> } | undefined;
}

/**
 * The problems of a configuration that maps one person to two member credentials of a
 * workspace: a Slack user in two Slack channels' `members`, or an email address (in any
 * case) in email channels' `action_links.members`. That person's press in one channel and
 * link or press in another would count as two members' approvals, so a quorum that asks
 * for two people could be met by one.
 */
export function conflictingMembers(
  channels: readonly { channel: MappingChannel; index: number }[],
): MappingProblem[] {
  const problems: MappingProblem[] = [];
  const firstSeen = new Map<string, { credential: string; channel: string }>();
  for (const { channel, index } of channels) {
    const [map, at, fold] =
      channel.kind === 'slack'
        ? [channel.members, 'members', (who: string) => who]
        : [
            channel.action_links?.members,
            'action_links/members',
            (who: string) => who.toLowerCase(),
          ];
    for (const [who, credential] of Object.entries(map ?? {})) {
      const key = JSON.stringify([channel.workspace, channel.kind, fold(who)]);
      const earlier = firstSeen.get(key);
      if (!earlier) {
        firstSeen.set(key, { credential, channel: channel.name });
        continue;
      }
      if (earlier.credential === credential) continue;
      problems.push({
        code: 'invalid_value',
        pointer: `/channels/${index}/${at}/${who.replace(/~/g, '~0').replace(/\//g, '~1')}`,
        message: `${who} is mapped to ${credential} here and to ${earlier.credential} in channel ${earlier.channel}: one person would count as two approvals of a quorum; map a person to one member credential`,
      });
    }
  }
  return problems;
}

import { describe, expect, it } from 'vitest';
import { NotificationsConfigError, parseNotificationsConfig } from './config.js';

const LINK_SECRET = 'an-action-link-secret-of-32-chars-or-more';

function slack(name: string, workspace: string, members: Record<string, string>) {
  const channel = 'C1';
  return { name, kind: 'slack', workspace, token: 'xoxb-1', signing_secret: 's', channel, members };
}

function email(name: string, workspace: string, members: Record<string, string>) {
  return {
    name,
    kind: 'email',
    workspace,
    smtp: { host: '127.0.0.1', port: 25 },
    from: 'airlock@example.com',
    to: Object.keys(members),
    action_links: { secret: LINK_SECRET, members },
  };
}

function problemsOf(channels: unknown[]) {
  try {
    parseNotificationsConfig({ channels }, {});
  } catch (error) {
    if (error instanceof NotificationsConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('one person, one member credential per workspace', () => {
  it('refuses a Slack user or an email address mapped to two member credentials: one person would be two approvals of a quorum', () => {
    const problems = problemsOf([
      slack('approvals', 'ws_1', { U_ALICE: 'cred_alice', U_BOB: 'cred_bob' }),
      slack('oncall', 'ws_1', { U_ALICE: 'cred_alice_2', U_BOB: 'cred_bob' }),
      email('mail', 'ws_1', { 'alice@example.com': 'cred_alice' }),
      email('mail-2', 'ws_1', { 'Alice@Example.com': 'cred_alice_2' }),
    ]);
    expect(problems.map((p) => [p.code, p.pointer])).toEqual([
      ['invalid_value', '/channels/1/members/U_ALICE'],
      ['invalid_value', '/channels/3/action_links/members/Alice@Example.com'],
    ]);
    expect(problems[0]!.message).toContain(
      'cred_alice_2 here and to cred_alice in channel approvals',
    );
  });

  it('refuses two spellings of one address mapped to two members in one channel', () => {
    const problems = problemsOf([
      email('mail', 'ws_1', { 'alice@example.com': 'cred_alice', 'ALICE@example.com': 'cred_x' }),
    ]);
    expect(problems.map((p) => p.pointer)).toEqual([
      '/channels/0/action_links/members/ALICE@example.com',
    ]);
  });

  it('accepts a person mapped to the same member everywhere, and the same ids in other workspaces', () => {
    expect(
      problemsOf([
        slack('approvals', 'ws_1', { U_ALICE: 'cred_alice' }),
        slack('oncall', 'ws_1', { U_ALICE: 'cred_alice' }),
        slack('approvals', 'ws_2', { U_ALICE: 'cred_other_workspace' }),
        email('mail', 'ws_1', { 'alice@example.com': 'cred_alice' }),
        email('mail-2', 'ws_1', { 'ALICE@example.com': 'cred_alice' }),
        email('mail', 'ws_2', { 'alice@example.com': 'cred_other_workspace' }),
      ]),
    ).toEqual([]);
  });
});

import { unknownVerbLine } from '@airlock/core/command-line';
import { looksLikeToken, readSecretArgument } from '../secret-input.js';
import {
  CONNECTION_HELP,
  connectionFrom,
  parseOperatorArgs,
  print,
  UsageError,
} from './connection.js';
import { parseIdFilter } from './filter-values.js';
import { warnUnreachableRules } from './unreachable-rules.js';

/** `airlock tokens --help` */
export const TOKENS_HELP = `Usage:
  airlock tokens create --kind agent|executor|member [--application <id>] [--label <text>]
  airlock tokens create --kind member [--role admin|approver] --workspace-level [--label <text>]
  airlock tokens list [--all]
  airlock tokens revoke <credential-id or token | ->
  airlock tokens label <credential-id> <name>

Creates and revokes credentials through a running kernel, with a member
credential. A new token is printed once, alone on stdout (what it is goes to
stderr). Agent and executor credentials
belong to an agent application (default: the one your member credential
belongs to). A workspace-level member credential belongs to no application,
so it outlives the removal of every one. Revoking an application's last executor leaves its held rows
addressed to nobody; a member still answers them. Revoking a member an
approval policy rule counts on goes ahead, and warns on stderr for each rule
its live members can no longer meet (--json: unreachable_approval_rules).
(To manage credentials
straight in a local store without a running kernel, use \`airlock token\`.)
A label is the member's name: decisions, the run story and the inbox show it
instead of the credential id; "label" renames a credential.
A member credential is an approver (decides calls) unless --role admin makes it
an admin (also manages credentials, applications and policies). Creating,
revoking and labelling credentials needs an admin credential. "list" shows
each credential's id, kind, role (- for agent and executor), application,
state and label. To revoke by the token itself, pass it on standard input
(\`airlock tokens revoke - < token-file\`, or \`printenv T | airlock tokens
revoke -\`): a token on the command line still works, with a warning, since
any user can read it in \`ps\` and it stays in shell history.

${CONNECTION_HELP}`;

/** Runs `airlock tokens ...`; returns the exit code. */
export async function tokens(argv: string[]): Promise<number> {
  const { values, positionals } = parseOperatorArgs(argv, 'tokens', {
    create: {
      flags: {
        kind: { type: 'string' },
        application: { type: 'string' },
        label: { type: 'string' },
        role: { type: 'string' },
        'workspace-level': { type: 'boolean' },
      },
    },
    list: { flags: { all: { type: 'boolean' } } },
    revoke: { operands: ['<credential-id or token>'] },
    label: { operands: ['<credential-id>', '<name>'] },
  });
  const [verb, target] = positionals;
  if (values.help || !verb) {
    process.stdout.write(TOKENS_HELP);
    return values.help ? 0 : 2;
  }
  const connection = connectionFrom(values);
  switch (verb) {
    case 'create': {
      // A missing --kind is told before the contracts' schemas load.
      const schemas = values.kind === undefined ? undefined : await import('@airlock/core');
      const kind = schemas?.CredentialKindSchema.safeParse(values.kind);
      if (!schemas || !kind?.success) {
        throw new UsageError('airlock tokens create: --kind must be agent, executor or member');
      }
      const role =
        values.role === undefined ? undefined : schemas.MemberRoleSchema.safeParse(values.role);
      if (role && !role.success) {
        throw new UsageError('airlock tokens create: --role must be admin or approver');
      }
      if (role && kind.data !== 'member') {
        throw new UsageError('airlock tokens create: --role is for a member credential');
      }
      const command = 'airlock tokens create';
      // An unset shell variable (`--application "$APP"`) is told here, not refused by the kernel.
      const application = parseIdFilter(values.application, {
        command,
        flag: '--application',
        what: 'an agent application id',
      });
      const label = parseIdFilter(values.label, { command, flag: '--label', what: 'a name' });
      if (values['workspace-level'] && (values.kind !== 'member' || application)) {
        throw new UsageError(
          'airlock tokens create: --workspace-level is for a member credential without --application',
        );
      }
      const made = await connection.call('credentials.create', {
        workspace_id: connection.workspace,
        kind: kind.data,
        ...(application ? { agent_application_id: application } : {}),
        ...(values['workspace-level'] ? { agent_application_id: null } : {}),
        ...(role?.success ? { role: role.data } : {}),
        ...(label ? { label } : {}),
      });
      // Only the token on stdout, so that `T=$(airlock tokens create …)` holds the token alone.
      print(connection, made, () => [made.token]);
      if (!connection.json) {
        process.stderr.write(
          `(${made.role ? `${made.role} ` : ''}${made.kind} credential ${made.credential_id}${made.agent_application_id ? ` of ${made.agent_application_id}` : ''}; shown once)
`,
        );
      }
      return 0;
    }
    case 'list': {
      const listed = await connection.call('credentials.list', {
        workspace_id: connection.workspace,
        ...(values.all ? { include_revoked: 'true' } : {}),
      });
      print(connection, listed, () =>
        listed.credentials.map((c) => [
          c.credential_id,
          c.kind,
          c.role ?? '-',
          c.agent_application_id ?? 'workspace',
          c.revoked_at ? 'revoked' : 'active',
          c.label,
        ]),
      );
      return 0;
    }
    case 'revoke': {
      if (!target) throw new UsageError('airlock tokens revoke: give <credential-id or token>');
      const credential_id = await readSecretArgument(target, {
        command: 'airlock tokens revoke',
        what: 'credential id or token',
        fromStdin: 'airlock tokens revoke -',
        isSecret: looksLikeToken,
      });
      const revoked = await connection.call('credentials.revoke', {
        workspace_id: connection.workspace,
        credential_id,
      });
      print(connection, revoked, () => [
        `revoked ${revoked.kind} credential ${revoked.credential_id}`,
        ...revoked.readdressed.map(
          (row) => `  readdressed ${row.run_id} ${row.task_key} to nobody`,
        ),
      ]);
      // On stderr, so scripts reading stdout (or --json, which carries the rules) see no change.
      warnUnreachableRules(revoked.unreachable_approval_rules);
      return 0;
    }
    case 'label': {
      const name = positionals[2];
      if (!target || !name) {
        throw new UsageError('airlock tokens label: give <credential-id> <name>');
      }
      const labeled = await connection.call('credentials.label', {
        workspace_id: connection.workspace,
        credential_id: target,
        label: name,
      });
      print(connection, labeled, () => [`${labeled.credential_id} is now "${labeled.label}"`]);
      return 0;
    }
    default:
      throw new UsageError(unknownVerbLine('tokens', verb, ['create', 'list', 'revoke', 'label']));
  }
}

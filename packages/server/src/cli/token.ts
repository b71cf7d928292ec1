import { forTerminal } from '@airlock/core/command-line';
import type { CredentialKind, MemberRole } from '../store/accounts.js';
import { type ParsedCommandLine, parseVerbCommandLine } from './command-line.js';
import { checkedStoreLocation } from './database-url.js';
import type { TokenVerb } from './token-verbs.js';
import { mayBeSecret } from './unknown-command.js';

/** `airlock token --help` */
export const TOKEN_HELP = `Usage:
  airlock token create --kind agent|executor|member [--role admin|approver] [--label <text>] [store options]
  airlock token revoke <credential-id or token | -> [store options]
  airlock token list [store options]

Creates, revokes or lists bearer credentials of the local workspace. A token
is printed once, on stdout; only its SHA-256 is stored. Revoking an
application's last executor credential leaves the parks and questions held
for it addressed to nobody: a member still answers them. Revoking a member
an approval policy rule counts on goes ahead, and warns on stderr for each
rule its live members can no longer meet. A member credential
is an approver (decides calls) unless --role admin makes it an admin (also
manages credentials, applications and policies). "list" shows each
credential's id, kind, role (- for agent and executor), state and label.
To revoke by the token itself, pass it on standard input (\`airlock token
revoke - < token-file\`): a token on the command line still works, with a
warning, since any user can read it in \`ps\` and it stays in shell history.

Store options:
  --data-dir <dir>      SQLite data directory (env AIRLOCK_DATA_DIR; default ./.airlock)
  --database-url <url>  PostgreSQL URL (env DATABASE_URL)
`;

/** The kinds and roles `airlock token create` takes, as the store names them. */
const KINDS: readonly CredentialKind[] = ['agent', 'executor', 'member'];
const ROLES: readonly MemberRole[] = ['admin', 'approver'];
/**
 * Whether the API's `credentials.create` takes a label (1 to 200 characters), so either way
 * makes the same. The contracts load only when a label is given: a usage error stays light.
 */
async function labelAccepted(label: string): Promise<boolean> {
  const { OPERATION_CONTRACTS } = await import('@airlock/core');
  return OPERATION_CONTRACTS['credentials.create'].input.shape.label.safeParse(label).success;
}

/**
 * Reads what the verb was asked to do, or says on stderr what is wrong with
 * its command line and returns the exit code (2): before the store is
 * opened, so a command line it refuses neither migrates the store nor
 * makes anything in it.
 */
function readVerb(
  verb: string,
  target: string | undefined,
  values: ParsedCommandLine['values'],
): TokenVerb | number {
  if (verb === 'create') {
    const kind = KINDS.find((known) => known === values.kind);
    if (!kind) {
      process.stderr.write('airlock token create: --kind must be agent, executor or member\n');
      return 2;
    }
    const role = ROLES.find((known) => known === values.role);
    if (values.role !== undefined && (!role || kind !== 'member')) {
      process.stderr.write(
        'airlock token create: --role must be admin or approver, for a member credential\n',
      );
      return 2;
    }
    const label = typeof values.label === 'string' ? values.label : undefined;
    return { verb, kind, role, label };
  }
  if (verb === 'revoke') {
    if (!target) {
      process.stderr.write('airlock token revoke: name a credential id or a token\n');
      return 2;
    }
    return { verb, target };
  }
  if (verb === 'list') return { verb };
  const shown = mayBeSecret(verb) ? '(not repeated here: it may be a secret)' : forTerminal(verb);
  process.stderr.write(`airlock token: unknown verb ${shown}\n${TOKEN_HELP}`);
  return 2;
}

/** Runs `airlock token ...`; returns the exit code. */
export async function token(argv: string[]): Promise<number> {
  const { values, positionals } = parseVerbCommandLine(argv, {
    command: 'airlock token',
    common: {
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    verbs: {
      create: {
        flags: { kind: { type: 'string' }, role: { type: 'string' }, label: { type: 'string' } },
      },
      revoke: { operands: ['<credential-id or token>'] },
      list: {},
    },
  });
  const [verb, target] = positionals;
  if (values.help || !verb) {
    process.stdout.write(TOKEN_HELP);
    return values.help ? 0 : 2;
  }
  const location = checkedStoreLocation(values, 'airlock token');
  const asked = readVerb(verb, target, values);
  if (typeof asked === 'number') return asked;
  if (asked.verb === 'create' && asked.label !== undefined && !(await labelAccepted(asked.label))) {
    process.stderr.write(
      'airlock token create: --label must be 1 to 200 characters on one line, without a control character (a tab, a line break)\n',
    );
    return 2;
  }
  // The store and the kernel's verbs load only for a command line that can run.
  const { runTokenVerb } = await import('./token-verbs.js');
  return runTokenVerb(location, asked);
}

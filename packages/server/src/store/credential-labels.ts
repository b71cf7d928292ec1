/*
 * A credential's label is the name decisions, the run story, the inbox and notices show for its
 * principal, so one name stands for one active credential of a workspace: two members shown as
 * "Alice" could pass for each other.
 */
import { AirlockError } from '../errors.js';
import { SQL } from './sql-handle.js';
import type { Tx } from './store.js';

/**
 * The form in which two labels are the same name to a reader: compatibility forms folded
 * (full-width letters, ligatures), invisible format characters (zero-width spaces, direction
 * marks) and control characters dropped, runs of spacing made one space and trimmed, and case
 * folded (`ß` and `ss` alike). Look-alike letters of other scripts (a Cyrillic `а`) stay apart.
 */
export function labelKey(label: string): string {
  return label
    .normalize('NFKC')
    .replace(/\s+/gu, ' ')
    .replace(/[\p{Cf}\p{Cc}]/gu, '')
    .toUpperCase()
    .toLowerCase()
    .replace(/ {2,}/g, ' ')
    .trim();
}

/**
 * Refuses a label that names another active credential of the workspace (its application not
 * removed), or spells another credential's id or principal (`member:cred_x`, how a credential
 * without a name is shown); a label equal to its credential's kind is the default, names nobody, and is never
 * refused. The caller holds the workspace's row (lockWorkspaceRow), so two requests naming two
 * credentials alike at once take turns and the second sees the first.
 * @throws AirlockError label_taken naming the credential that holds the name or id; invalid_input for a
 *   label with no visible character.
 */
export async function refuseTakenLabel(
  tx: Tx,
  options: {
    workspaceId: string;
    label: string;
    kind: string;
    /** The credential being relabelled, which may keep its own name. */
    exceptCredentialId?: string | undefined;
  },
): Promise<void> {
  if (options.label === options.kind) return;
  const key = labelKey(options.label);
  if (key === '') {
    throw new AirlockError(
      'invalid_input',
      '/label: a label shows a name: it needs a visible character, not only spaces or invisible ones',
      [{ code: 'invalid_label', pointer: '/label', message: 'the label has no visible character' }],
    );
  }
  const rows = await tx[SQL].db
    .selectFrom('credentials')
    .leftJoin('agent_applications', 'agent_applications.id', 'credentials.agent_application_id')
    .select([
      'credentials.id',
      'credentials.kind',
      'credentials.label',
      'credentials.revoked_at',
      'agent_applications.removed_at',
    ])
    .where('credentials.workspace_id', '=', options.workspaceId)
    .execute();
  const others = rows.filter((row) => row.id !== options.exceptCredentialId);
  const holder = others.find(
    (row) =>
      row.revoked_at === null &&
      row.removed_at == null &&
      row.label !== row.kind &&
      labelKey(row.label) === key,
  );
  // A credential without a name is shown by its principal (`member:cred_x`), revoked or not:
  // a label spelling it would pass for that credential on the decisions it made.
  const spelled = others.find(
    (row) => labelKey(row.id) === key || labelKey(`${row.kind}:${row.id}`) === key,
  );
  if (spelled) {
    throw new AirlockError(
      'label_taken',
      `the label ${JSON.stringify(options.label)} spells the id of ${spelled.kind} credential ${spelled.id}; a label is a name, not another credential's id. Choose another`,
    );
  }
  if (holder) {
    throw new AirlockError(
      'label_taken',
      `the label ${JSON.stringify(options.label)} names ${holder.kind} credential ${holder.id} (${JSON.stringify(holder.label)}) already; labels are compared without case, width, spacing or invisible characters. Choose another, or revoke that credential first`,
    );
  }
}

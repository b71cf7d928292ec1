/*
 * Who a workspace's principals are, as decisions read them: their names and which are revoked
 * (every decision's view), and the member credentials an approval policy may name.
 */
import { labelName } from './accounts.js';
import { runPrepared } from './prepared.js';
import type { Reader } from './reader.js';
import { SQL } from './sql-handle.js';
import type { Tx } from './store.js';

/** Who a workspace's principals are: their names, and which of them are revoked. */
export interface PrincipalRoster {
  /** Each named principal's name (`member:cred_x` -> label), revoked ones included. */
  names: Map<string, string>;
  /** The principals whose credential is revoked. */
  revoked: Set<string>;
  /** The member principals (`member:cred_x`) whose credential is not revoked: who can approve. */
  liveMembers: Set<string>;
}

/** A workspace's principals: names and revocations, in one read. */
export async function principalRoster(
  reader: Reader,
  workspaceId: string,
): Promise<PrincipalRoster> {
  // A prepared statement: the roster is read on the path of every decision's view.
  const { db, dialect } = reader[SQL];
  const { rows } = await runPrepared(
    db,
    dialect,
    'credentials.roster',
    (p) =>
      db
        .selectFrom('credentials')
        .select(['id', 'kind', 'label', 'revoked_at'])
        .where('workspace_id', '=', p('workspace_id')),
    { workspace_id: workspaceId },
  );
  const roster: PrincipalRoster = { names: new Map(), revoked: new Set(), liveMembers: new Set() };
  for (const row of rows) {
    const principal = `${row.kind}:${row.id}`;
    const name = labelName(row.label, row.kind);
    if (name !== null) roster.names.set(principal, name);
    if (row.revoked_at !== null) roster.revoked.add(principal);
    else if (row.kind === 'member') roster.liveMembers.add(principal);
  }
  return roster;
}

/** Per unit of work, each workspace's roster as that unit first read it. */
const rosterOfUnit = new WeakMap<Tx, Map<string, Promise<PrincipalRoster>>>();

/**
 * A workspace's roster read once per unit of work, so a round that parks many calls a policy
 * rule covers reads it once. Only for units that make, relabel or revoke no credential.
 */
export function principalRosterOnce(tx: Tx, workspaceId: string): Promise<PrincipalRoster> {
  let read = rosterOfUnit.get(tx);
  if (!read) {
    read = new Map();
    rosterOfUnit.set(tx, read);
  }
  let roster = read.get(workspaceId);
  if (!roster) {
    roster = principalRoster(tx, workspaceId);
    read.set(workspaceId, roster);
  }
  return roster;
}

/** The names of a workspace's credentials by principal (`member:cred_x` -> label), revoked ones included. */
export async function principalNames(
  reader: Reader,
  workspaceId: string,
): Promise<Map<string, string>> {
  return (await principalRoster(reader, workspaceId)).names;
}

/**
 * The member credentials of a workspace by id, each with whether it is revoked. All of them,
 * not those a document names: a policy may name tens of thousands, past what one statement
 * binds, while a workspace holds few.
 */
export async function memberCredentialStates(
  reader: Reader,
  workspaceId: string,
): Promise<Map<string, { revoked: boolean }>> {
  const rows = await reader[SQL].db
    .selectFrom('credentials')
    .select(['id', 'revoked_at'])
    .where('workspace_id', '=', workspaceId)
    .where('kind', '=', 'member')
    .execute();
  return new Map(rows.map((row) => [row.id, { revoked: row.revoked_at !== null }]));
}

/**
 * Whether a workspace still has an active admin member credential. A credential of a removed
 * application counts as revoked, as authentication reads it.
 */
export async function hasActiveAdmin(reader: Reader, workspaceId: string): Promise<boolean> {
  const remaining = await reader[SQL].db
    .selectFrom('credentials')
    .leftJoin('agent_applications', 'agent_applications.id', 'credentials.agent_application_id')
    .select('credentials.id')
    .where('credentials.workspace_id', '=', workspaceId)
    .where('credentials.kind', '=', 'member')
    .where('credentials.role', '=', 'admin')
    .where('credentials.revoked_at', 'is', null)
    .where('agent_applications.removed_at', 'is', null)
    .executeTakeFirst();
  return remaining !== undefined;
}

import type { Kysely } from 'kysely';
import { lockLiveApplication } from './applications.js';
import { refuseTakenLabel } from './credential-labels.js';
import { lockedForUpdate } from './dialect.js';
import { hashToken, newId, newToken } from './ids.js';
import { runPrepared } from './prepared.js';
import type { Reader } from './reader.js';
import type { CredentialTable, Database } from './schema.js';
import { SQL } from './sql-handle.js';
import type { Store, Tx } from './store.js';

/** The three credential kinds, one per plane. */
export type CredentialKind = 'agent' | 'executor' | 'member';

/** A member credential's role (see MemberRoleSchema in @airlock/core). */
export type MemberRole = 'admin' | 'approver';

/** Who is calling: the credential a request authenticated with. */
export interface Principal {
  credential_id: string;
  kind: CredentialKind;
  workspace_id: string;
  agent_application_id: string | null;
  /** A member credential's role; null for agent and executor credentials. */
  role: MemberRole | null;
}

/** A credential as listed (never with its token). */
export interface CredentialInfo extends Principal {
  label: string;
  created_at: number;
  revoked_at: number | null;
}

/** The text recorded as the deciding principal of a transition, e.g. `member:cred_x`. */
export function principalName(principal: Principal): string {
  return `${principal.kind}:${principal.credential_id}`;
}

/**
 * The name a credential's label gives its principal: the label, unless it is
 * still the default (its kind), which names nobody.
 */
export function labelName(label: string, kind: CredentialKind): string | null {
  return label === kind ? null : label;
}

/**
 * Sets a credential's label; the credential as listed after, or undefined when the workspace
 * has none by that id. `recordIn` records the change (before and after) in the same unit of work.
 * @throws AirlockError label_taken when the label names another active credential (refuseTakenLabel).
 */
export async function setCredentialLabel(
  store: Store,
  options: {
    workspaceId: string;
    credentialId: string;
    label: string;
    recordIn?: (tx: Tx, change: { before: CredentialInfo; after: CredentialInfo }) => void;
  },
): Promise<CredentialInfo | undefined> {
  return store.transaction(async (tx) => {
    const { db, dialect } = tx[SQL];
    const held = await lockedForUpdate(
      dialect,
      db
        .selectFrom('credentials')
        .select('id')
        .where('id', '=', options.credentialId)
        .where('workspace_id', '=', options.workspaceId),
    ).executeTakeFirst();
    if (!held) return undefined;
    await lockWorkspaceRow(tx, options.workspaceId);
    const before = credentialInfoOf(
      await credentialsWithApplications(db)
        .where('credentials.id', '=', options.credentialId)
        .executeTakeFirstOrThrow(),
    );
    await refuseTakenLabel(tx, {
      workspaceId: options.workspaceId,
      label: options.label,
      kind: before.kind,
      exceptCredentialId: before.credential_id,
    });
    await db
      .updateTable('credentials')
      .set({ label: options.label })
      .where('id', '=', options.credentialId)
      .execute();
    const after = { ...before, label: options.label };
    options.recordIn?.(tx, { before, after });
    return after;
  });
}

/** Creates a workspace. */
export async function createWorkspace(store: Store, name: string): Promise<{ id: string }> {
  const id = newId('ws');
  await store.db.insertInto('workspaces').values({ id, name, created_at: store.now() }).execute();
  return { id };
}

/**
 * Locks a workspace's row until the unit commits where processes share the
 * store (SQLite runs one writer at a time already): a read-check-write of a
 * workspace's settings (its approval or retention policy) made in two units
 * at once then takes turns, the second seeing the first's write, even where
 * the settings row does not exist yet to lock.
 */
export async function lockWorkspaceRow(tx: Tx, workspaceId: string): Promise<void> {
  const { db, dialect } = tx[SQL];
  await db
    .selectFrom('workspaces')
    .select('id')
    .where('id', '=', workspaceId)
    .$call((qb) => lockedForUpdate(dialect, qb))
    .executeTakeFirst();
}

/** Lists workspaces, oldest first. */
export async function listWorkspaces(store: Store): Promise<{ id: string; name: string }[]> {
  return store.db.selectFrom('workspaces').select(['id', 'name']).orderBy('created_at').execute();
}

/**
 * Creates a credential and returns its token: the only time the token is visible.
 * An application's credential is made with the application row locked, so a
 * removal of it either waits and counts this credential or commits first and
 * refuses it. A member credential is an `approver` unless `role` says otherwise.
 * @throws Error when an agent credential has no agent application, or a
 *   credential that is no member's is given a role.
 * @throws AirlockError agent_application_not_found when the workspace has no live application by that id;
 *   label_taken when `label` names another active credential of the workspace (refuseTakenLabel).
 */
export async function createCredential(
  store: Store,
  options: {
    workspaceId: string;
    kind: CredentialKind;
    agentApplicationId?: string | null;
    /** A member credential's role (default `approver`); no other kind has one. */
    role?: MemberRole;
    label?: string;
    /** Records the new credential in its unit of work (the audit trail's line). */
    recordIn?: (tx: Tx, made: CredentialInfo) => void;
  },
): Promise<{ credential: CredentialInfo; token: string }> {
  const agentApplicationId = options.agentApplicationId ?? null;
  if (options.kind === 'agent' && !agentApplicationId) {
    throw new Error('an agent credential belongs to an agent application');
  }
  if (options.kind !== 'member' && options.role !== undefined) {
    throw new Error(`a role belongs to a member credential, not to a ${options.kind} credential`);
  }
  const role = options.kind === 'member' ? (options.role ?? 'approver') : null;
  const token = newToken(options.kind);
  const credential = await store.transaction(async (tx): Promise<CredentialInfo> => {
    if (agentApplicationId !== null) {
      await lockLiveApplication(tx, { workspaceId: options.workspaceId, agentApplicationId });
    }
    if (options.label !== undefined) {
      await lockWorkspaceRow(tx, options.workspaceId);
      await refuseTakenLabel(tx, {
        workspaceId: options.workspaceId,
        label: options.label,
        kind: options.kind,
      });
    }
    const made: CredentialInfo = {
      credential_id: newId('cred'),
      kind: options.kind,
      workspace_id: options.workspaceId,
      agent_application_id: agentApplicationId,
      role,
      label: options.label ?? options.kind,
      created_at: tx.now,
      revoked_at: null,
    };
    await tx[SQL].db
      .insertInto('credentials')
      .values({
        id: made.credential_id,
        workspace_id: made.workspace_id,
        agent_application_id: agentApplicationId,
        kind: made.kind,
        role,
        token_hash: hashToken(token),
        label: made.label,
        created_at: made.created_at,
      })
      .execute();
    options.recordIn?.(tx, made);
    return made;
  });
  return { credential, token };
}

/** How long a resolved token is trusted before the store is asked again. */
export const CREDENTIAL_CACHE_MS = 1000;
const credentialCache = new WeakMap<Store, Map<string, { principal: Principal; until: number }>>();

function cacheOf(store: Store): Map<string, { principal: Principal; until: number }> {
  let cache = credentialCache.get(store);
  if (!cache) {
    cache = new Map();
    credentialCache.set(store, cache);
  }
  return cache;
}

/** Forgets every resolved token of a store: a revocation or removal takes effect on the next request. */
export function forgetCredentials(store: Store): void {
  cacheOf(store).clear();
}

/**
 * Resolves a bearer token to its principal; null when unknown or revoked. A
 * resolved token is remembered for {@link CREDENTIAL_CACHE_MS}; a revocation in
 * this process takes effect at once, one from another process within that time.
 */
export async function authenticate(store: Store, token: string): Promise<Principal | null> {
  const hash = hashToken(token);
  const cache = cacheOf(store);
  const now = Date.now();
  const cached = cache.get(hash);
  if (cached && cached.until > now) return cached.principal;
  const principal = await lookUpCredential(store, hash);
  if (principal) {
    if (cache.size > 10_000) cache.clear();
    cache.set(hash, { principal, until: now + CREDENTIAL_CACHE_MS });
  } else {
    cache.delete(hash);
  }
  return principal;
}

async function lookUpCredential(store: Store, hash: string): Promise<Principal | null> {
  // A prepared statement: every request with a token not cached (a wrong one above all) reads it.
  const { db, dialect } = store[SQL];
  const { rows } = await runPrepared(
    db,
    dialect,
    'credentials.by_token',
    (p) =>
      db
        .selectFrom('credentials')
        .leftJoin('agent_applications', 'agent_applications.id', 'credentials.agent_application_id')
        .select([
          'credentials.id',
          'credentials.kind',
          'credentials.workspace_id',
          'credentials.agent_application_id',
          'credentials.role',
          'credentials.revoked_at',
          'agent_applications.removed_at',
        ])
        .where('credentials.token_hash', '=', p('token_hash')),
    { token_hash: hash },
  );
  const row = rows[0];
  if (!row || row.revoked_at !== null || row.removed_at != null) return null;
  return {
    credential_id: row.id,
    kind: row.kind,
    workspace_id: row.workspace_id,
    agent_application_id: row.agent_application_id,
    role: row.role,
  };
}

/**
 * Whether a credential still works: not revoked, and its agent application
 * (if any) not removed. For a request that holds on to the principal it
 * authenticated once while it waits (a hook held for a person's answer).
 */
export async function credentialIsActive(store: Store, credentialId: string): Promise<boolean> {
  const row = await store.db
    .selectFrom('credentials')
    .leftJoin('agent_applications', 'agent_applications.id', 'credentials.agent_application_id')
    .select(['credentials.revoked_at', 'agent_applications.removed_at'])
    .where('credentials.id', '=', credentialId)
    .executeTakeFirst();
  return row !== undefined && row.revoked_at === null && row.removed_at == null;
}

/**
 * Revokes a credential named by its id or by its token; true when one was revoked now.
 */
export async function revokeCredential(store: Store, idOrToken: string): Promise<boolean> {
  cacheOf(store).clear();
  const result = await store.db
    .updateTable('credentials')
    .set({ revoked_at: store.now() })
    .where((eb) => eb.or([eb('id', '=', idOrToken), eb('token_hash', '=', hashToken(idOrToken))]))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  cacheOf(store).clear();
  return Number(result.numUpdatedRows) > 0;
}

/** Lists a workspace's credentials (without tokens); one of a removed application as revoked at its removal. */
export async function listCredentials(
  store: Store,
  workspaceId: string,
): Promise<CredentialInfo[]> {
  const rows = await credentialsWithApplications(store.db)
    .where('credentials.workspace_id', '=', workspaceId)
    .orderBy('credentials.created_at')
    .execute();
  return rows.map(credentialInfoOf);
}

/** Credentials with when their application was removed, as listings read them. */
function credentialsWithApplications(db: Kysely<Database>) {
  return db
    .selectFrom('credentials')
    .leftJoin('agent_applications', 'agent_applications.id', 'credentials.agent_application_id')
    .selectAll('credentials')
    .select('agent_applications.removed_at as application_removed_at');
}

/** A credential as listings show it. */
function credentialInfoOf(
  row: CredentialTable & { application_removed_at: number | null },
): CredentialInfo {
  return {
    credential_id: row.id,
    kind: row.kind,
    workspace_id: row.workspace_id,
    agent_application_id: row.agent_application_id,
    role: row.role,
    label: row.label,
    created_at: row.created_at,
    // A credential of a removed application is refused from the removal on (activeCredential).
    revoked_at: row.revoked_at ?? row.application_removed_at ?? null,
  };
}

/**
 * Revokes the active credential named by its id or its token (within a
 * workspace when one is given), in a unit of work; undefined when no active
 * credential matches. Callers forget the credential cache after the commit.
 */
export async function revokeActiveCredential(
  tx: Tx,
  options: { idOrToken: string; workspaceId?: string | undefined },
): Promise<
  | Pick<
      CredentialTable,
      'id' | 'kind' | 'role' | 'label' | 'agent_application_id' | 'workspace_id'
    >
  | undefined
> {
  return tx[SQL].db
    .updateTable('credentials')
    .set({ revoked_at: tx.now })
    .where((eb) =>
      eb.or([
        eb('id', '=', options.idOrToken),
        eb('token_hash', '=', hashToken(options.idOrToken)),
      ]),
    )
    .where('revoked_at', 'is', null)
    .$if(options.workspaceId !== undefined, (qb) =>
      qb.where('workspace_id', '=', options.workspaceId!),
    )
    .returning(['id', 'kind', 'role', 'label', 'agent_application_id', 'workspace_id'])
    .executeTakeFirst();
}

/** True when an agent application still has an active executor credential. */
export async function hasActiveExecutor(
  reader: Reader,
  agentApplicationId: string,
): Promise<boolean> {
  const remaining = await reader[SQL].db
    .selectFrom('credentials')
    .select('id')
    .where('agent_application_id', '=', agentApplicationId)
    .where('kind', '=', 'executor')
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return remaining !== undefined;
}

/** How many active member credentials belong to an agent application. */
export async function countActiveMembersOf(
  reader: Reader,
  agentApplicationId: string,
): Promise<number> {
  const row = await reader[SQL].db
    .selectFrom('credentials')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('agent_application_id', '=', agentApplicationId)
    .where('kind', '=', 'member')
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

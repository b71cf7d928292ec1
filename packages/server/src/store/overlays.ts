import { createHash } from 'node:crypto';
import { canonicalJson, type OverlayDocument, type OverlayScope } from '@airlock/core';
import { AirlockError } from '../errors.js';
import { type PreparedQuery, readAhead, runPrepared } from './prepared.js';
import type { Reader } from './reader.js';
import { SQL } from './sql-handle.js';

/** Names one overlay document: its scope and owner in a workspace. */
export interface OverlayKey {
  workspaceId: string;
  scope: OverlayScope;
  /** The member principal (user), agent application (project) or conversation id. */
  ownerId: string;
}

/** An overlay document as stored (an absent one reads as empty). */
export interface OverlayRecord {
  scope: OverlayScope;
  owner_id: string;
  groups: OverlayDocument;
  digest: string;
  /** The digest a member trusted (project documents); null when none was. */
  trusted_digest: string | null;
  /** True when the document applies: always for user and conversation, once trusted for a project. */
  active: boolean;
  updated_by: string | null;
  updated_at: number | null;
}

/** The digest of a document: SHA-256 of its canonical JSON. */
export function overlayDigest(document: OverlayDocument): string {
  return `sha256:${createHash('sha256').update(canonicalJson(document)).digest('hex')}`;
}

/** The digest of the empty document, which every absent document has. */
export const EMPTY_OVERLAY_DIGEST = overlayDigest([]);

function isActive(scope: OverlayScope, digest: string, trusted: string | null): boolean {
  return scope !== 'project' || (trusted !== null && trusted === digest);
}

/** Reads one overlay document; an absent one is empty, with the empty digest. */
export async function readOverlay(reader: Reader, key: OverlayKey): Promise<OverlayRecord> {
  const row = await reader[SQL].db
    .selectFrom('overlay_documents')
    .selectAll()
    .where('workspace_id', '=', key.workspaceId)
    .where('scope', '=', key.scope)
    .where('owner_id', '=', key.ownerId)
    .executeTakeFirst();
  if (!row) {
    return {
      scope: key.scope,
      owner_id: key.ownerId,
      groups: [],
      digest: EMPTY_OVERLAY_DIGEST,
      trusted_digest: null,
      active: key.scope !== 'project',
      updated_by: null,
      updated_at: null,
    };
  }
  return {
    scope: key.scope,
    owner_id: key.ownerId,
    groups: JSON.parse(row.document) as OverlayDocument,
    digest: row.digest,
    trusted_digest: row.trusted_digest,
    active: isActive(key.scope, row.digest, row.trusted_digest),
    updated_by: row.updated_by,
    updated_at: row.updated_at,
  };
}

function stale(key: OverlayKey, expected: string): AirlockError {
  return new AirlockError(
    'stale_digest',
    `the ${key.scope} overlay of ${key.ownerId} changed since digest ${expected}; read it again and reapply your change`,
  );
}

/**
 * Replaces a whole document if it still has the digest the writer read
 * (optimistic concurrency; the empty digest for a document never written).
 * A project document becomes untrusted, unless `keepTrust` and it was trusted.
 * @throws AirlockError stale_digest (409) when another write came first.
 */
export async function replaceOverlay(
  tx: Reader & { now: number },
  key: OverlayKey,
  change: { expectedDigest: string; document: OverlayDocument; by: string; keepTrust?: boolean },
): Promise<OverlayRecord> {
  const digest = overlayDigest(change.document);
  const text = JSON.stringify(change.document);
  const current = await tx[SQL].db
    .selectFrom('overlay_documents')
    .select(['digest', 'trusted_digest', 'trusted_by'])
    .where('workspace_id', '=', key.workspaceId)
    .where('scope', '=', key.scope)
    .where('owner_id', '=', key.ownerId)
    .executeTakeFirst();
  if (!current) {
    if (change.expectedDigest !== EMPTY_OVERLAY_DIGEST) throw stale(key, change.expectedDigest);
    const inserted = await tx[SQL].db
      .insertInto('overlay_documents')
      .values({
        workspace_id: key.workspaceId,
        scope: key.scope,
        owner_id: key.ownerId,
        document: text,
        digest,
        trusted_digest: null,
        trusted_by: null,
        updated_by: change.by,
        updated_at: tx.now,
      })
      .onConflict((oc) => oc.columns(['workspace_id', 'scope', 'owner_id']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1)
      throw stale(key, change.expectedDigest);
    return readOverlay(tx, key);
  }
  const wasTrusted = current.trusted_digest !== null && current.trusted_digest === current.digest;
  const keep = change.keepTrust === true && wasTrusted;
  const updated = await tx[SQL].db
    .updateTable('overlay_documents')
    .set({
      document: text,
      digest,
      updated_by: change.by,
      updated_at: tx.now,
      ...(keep ? { trusted_digest: digest, trusted_by: change.by } : {}),
    })
    .where('workspace_id', '=', key.workspaceId)
    .where('scope', '=', key.scope)
    .where('owner_id', '=', key.ownerId)
    .where('digest', '=', change.expectedDigest)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) throw stale(key, change.expectedDigest);
  return readOverlay(tx, key);
}

/**
 * Trusts a project document's exact digest: from now on its groups apply, until it changes.
 * @throws AirlockError stale_digest (409) when the document no longer has that digest.
 */
export async function trustOverlay(
  tx: Reader & { now: number },
  key: OverlayKey,
  trust: { digest: string; by: string },
): Promise<OverlayRecord> {
  const updated = await tx[SQL].db
    .updateTable('overlay_documents')
    .set({ trusted_digest: trust.digest, trusted_by: trust.by })
    .where('workspace_id', '=', key.workspaceId)
    .where('scope', '=', key.scope)
    .where('owner_id', '=', key.ownerId)
    .where('digest', '=', trust.digest)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) {
    throw new AirlockError(
      'stale_digest',
      `the project overlay of ${key.ownerId} does not have digest ${trust.digest}; read it, review it and trust what you read`,
    );
  }
  return readOverlay(tx, key);
}

/** The stored documents of these (scope, owner) pairs in a workspace; absent ones are left out. */
export async function readOverlayDocuments(
  reader: Reader,
  workspaceId: string,
  wanted: readonly (readonly [OverlayScope, string])[],
  options: { everyUserDocument?: boolean } = {},
): Promise<
  {
    scope: OverlayScope;
    owner_id: string;
    document: string;
    digest: string;
    trusted_digest: string | null;
  }[]
> {
  // A prepared statement per shape (how many documents, and whether every user document): this
  // read is on the path of every call the approval stage weighs.
  const everyUser = options.everyUserDocument === true;
  const values: Record<string, unknown> = { workspace_id: workspaceId };
  wanted.forEach(([scope, owner], i) => {
    values[`scope_${i}`] = scope;
    values[`owner_${i}`] = owner;
  });
  const { db, dialect } = reader[SQL];
  const { rows } = await runPrepared(
    db,
    dialect,
    `overlay_documents.read:${wanted.length}:${everyUser ? 'every-user' : 'named'}`,
    (p) =>
      db
        .selectFrom('overlay_documents')
        .select(['scope', 'owner_id', 'document', 'digest', 'trusted_digest'])
        .where('workspace_id', '=', p('workspace_id'))
        .where((eb) =>
          eb.or([
            // Every member's user document, for the guardrails that bind the whole workspace.
            ...(everyUser ? [eb('scope', '=', 'user')] : []),
            ...wanted.map((_, i) =>
              eb.and([eb('scope', '=', p(`scope_${i}`)), eb('owner_id', '=', p(`owner_${i}`))]),
            ),
          ]),
        ),
    values,
  );
  return rows as Awaited<ReturnType<typeof readOverlayDocuments>>;
}

/** One member's user document as the guardrails' version reads it: its owner and digest. */
export interface UserOverlayDigest {
  owner_id: string;
  digest: string;
}

function userOverlayDigestsQuery(reader: Reader, workspaceId: string): PreparedQuery {
  return {
    key: 'overlay_documents.user_digests',
    build: (p) =>
      reader[SQL].db
        .selectFrom('overlay_documents')
        .select(['owner_id', 'digest'])
        .where('workspace_id', '=', p('workspace_id'))
        .where('scope', '=', 'user')
        .orderBy('owner_id'),
    values: { workspace_id: workspaceId },
  };
}

/**
 * The owner and digest of every member's user document of a workspace, by
 * owner: what the workspace's guardrails are a function of, read without the
 * documents themselves, so a cache of the guardrails is checked per claim.
 */
export async function readUserOverlayDigests(
  reader: Reader,
  workspaceId: string,
): Promise<UserOverlayDigest[]> {
  const { key, build, values } = userOverlayDigestsQuery(reader, workspaceId);
  const { db, dialect } = reader[SQL];
  return (await runPrepared<UserOverlayDigest>(db, dialect, key, build, values)).rows;
}

/**
 * On PostgreSQL, sends {@link readUserOverlayDigests} with the unit's next
 * statement (see `readAhead`); undefined on SQLite.
 */
export function readUserOverlayDigestsAhead(
  reader: Reader,
  workspaceId: string,
): Promise<UserOverlayDigest[]> | undefined {
  const { db, dialect } = reader[SQL];
  return readAhead<UserOverlayDigest>(db, dialect, userOverlayDigestsQuery(reader, workspaceId));
}

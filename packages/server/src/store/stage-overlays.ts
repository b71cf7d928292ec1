import type { OverlayScope } from '@airlock/core';
import { type PreparedQuery, readAhead, runPrepared } from './prepared.js';
import type { Reader } from './reader.js';
import { SQL } from './sql-handle.js';

/**
 * The one read the approval stage makes of the overlay documents for a call:
 * the documents that apply to its run (its creator's user document, its
 * application's project document, its conversation's) in full, and the
 * owner and digest of every other member's user document, which are what
 * the workspace's guardrails are a function of (their documents are read
 * only when those digests changed; kernel/stage/workspace-guardrails.ts).
 * A workspace of hundreds of members thus costs the stage a list of digests
 * per call, not every member's document.
 */

/** Whose documents apply to a run; null where the run has none of that scope. */
export interface RunOverlayOwners {
  user: string | null;
  project: string | null;
  conversation: string | null;
}

/** One row of {@link readStageOverlays}: `document` is null for another member's user document. */
export interface StageOverlayRow {
  scope: OverlayScope;
  owner_id: string;
  digest: string;
  trusted_digest: string | null;
  document: string | null;
}

function stageOverlaysQuery(
  reader: Reader,
  workspaceId: string,
  owners: RunOverlayOwners,
): PreparedQuery {
  const { db } = reader[SQL];
  return {
    key: 'overlay_documents.stage',
    // An absent owner is bound as NULL, which equals nothing: one statement shape for every run.
    build: (p) =>
      db
        .selectFrom('overlay_documents')
        .select((eb) => [
          'scope',
          'owner_id',
          'digest',
          'trusted_digest',
          eb
            .case()
            .when(eb.or([eb('scope', '!=', 'user'), eb('owner_id', '=', p('user'))]))
            .then(eb.ref('document'))
            .else(null)
            .end()
            .as('document'),
        ])
        .where('workspace_id', '=', p('workspace_id'))
        .where((eb) =>
          eb.or([
            eb('scope', '=', 'user'),
            eb.and([eb('scope', '=', 'project'), eb('owner_id', '=', p('project'))]),
            eb.and([eb('scope', '=', 'conversation'), eb('owner_id', '=', p('conversation'))]),
          ]),
        ),
    values: {
      workspace_id: workspaceId,
      user: owners.user,
      project: owners.project,
      conversation: owners.conversation,
    },
  };
}

/** Per unit of work, the stage reads sent ahead and not taken yet, by workspace and owners. */
const sentAhead = new WeakMap<Reader, Map<string, Promise<StageOverlayRow[]>>>();

function aheadKey(workspaceId: string, owners: RunOverlayOwners): string {
  return JSON.stringify([workspaceId, owners.user, owners.project, owners.conversation]);
}

/**
 * The overlay rows the approval stage reads for a run of a workspace: the
 * documents of `owners` with their text, every other user document by owner
 * and digest alone. A read of the same rows sent ahead in this unit (see
 * {@link sendStageOverlaysAhead}) answers the first call instead.
 */
export async function readStageOverlays(
  reader: Reader,
  workspaceId: string,
  owners: RunOverlayOwners,
): Promise<StageOverlayRow[]> {
  const pending = sentAhead.get(reader);
  if (pending !== undefined) {
    const key = aheadKey(workspaceId, owners);
    const ahead = pending.get(key);
    pending.delete(key);
    if (ahead) return ahead;
  }
  const query = stageOverlaysQuery(reader, workspaceId, owners);
  const { db, dialect } = reader[SQL];
  const alongside = readsAlongside.get(reader);
  readsAlongside.delete(reader);
  // They register themselves to go out with the statement below (see `readAhead`).
  for (const send of alongside ?? []) send();
  return (await runPrepared<StageOverlayRow>(db, dialect, query.key, query.build, query.values))
    .rows;
}

/** Per unit of work, the reads to send ahead with its next stage overlay statement. */
const readsAlongside = new WeakMap<Reader, (() => void)[]>();

/**
 * Has `send` (a read sent ahead, see `readAhead`) called right before the unit's next
 * {@link readStageOverlays} that reads the database, so that read carries it in its own
 * write: a caller that may need the rows later in the unit gets them without a round trip
 * of their own, and one whose stage reads nothing (a read sent ahead earlier answered it,
 * or no layer read) never sends it, so no later wait is left for a statement that never
 * comes. {@link dropReadsAlongside} forgets what was not sent.
 */
export function sendAlongsideStageRead(reader: Reader, send: () => void): void {
  const pending = readsAlongside.get(reader);
  if (pending) pending.push(send);
  else readsAlongside.set(reader, [send]);
}

/** Forgets the reads {@link sendAlongsideStageRead} was given that no stage read has sent. */
export function dropReadsAlongside(reader: Reader): void {
  readsAlongside.delete(reader);
}

/**
 * On PostgreSQL, sends {@link readStageOverlays} with the unit's next
 * statement (see `readAhead`), for the stage to take later in the unit
 * without a round trip of its own. The caller must send a statement before
 * the stage reads, and write no overlay document in between. Nothing
 * happens on SQLite.
 */
export function sendStageOverlaysAhead(
  reader: Reader,
  workspaceId: string,
  owners: RunOverlayOwners,
): void {
  const { db, dialect } = reader[SQL];
  const rows = readAhead<StageOverlayRow>(
    db,
    dialect,
    stageOverlaysQuery(reader, workspaceId, owners),
  );
  if (!rows) return;
  let pending = sentAhead.get(reader);
  if (!pending) {
    pending = new Map();
    sentAhead.set(reader, pending);
  }
  pending.set(aheadKey(workspaceId, owners), rows);
}

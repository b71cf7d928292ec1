import { isStorableText } from '@airlock/core';
import { AirlockError } from '../errors.js';
import type { RunCursor } from '../store/runs.js';

/** A task key as the kernel plants them: `t` and a number without leading zeros. */
const TASK_KEY = /^t[1-9][0-9]*$/;

function readJson(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}

function refused(list: string): AirlockError {
  return new AirlockError('invalid_input', `cursor: not a cursor this ${list} returned`, [
    {
      code: 'invalid_cursor',
      pointer: '/cursor',
      message: `not a cursor this ${list} returned; pass a next_cursor as it came`,
    },
  ]);
}

/** The cursor after a run of the runs list: its (created_at, id), base64url JSON. */
export function encodeRunCursor(run: { created_at: number; id: string }): string {
  return Buffer.from(JSON.stringify([run.created_at, run.id])).toString('base64url');
}

/**
 * Reads a cursor made by {@link encodeRunCursor}: one that encodes back to
 * the same text, whose id no store would refuse (NUL, on PostgreSQL) or read
 * otherwise, so every store answers a made-up cursor alike.
 * @throws AirlockError invalid_input for anything else.
 */
export function decodeRunCursor(cursor: string): RunCursor {
  const parts = readJson(cursor);
  if (
    !Array.isArray(parts) ||
    parts.length !== 2 ||
    !Number.isSafeInteger(parts[0]) ||
    typeof parts[1] !== 'string' ||
    !isStorableText(parts[1]) ||
    encodeRunCursor({ created_at: parts[0], id: parts[1] }) !== cursor
  ) {
    throw refused('runs list');
  }
  return { createdAt: parts[0] as number, id: parts[1] };
}

/** The cursor after a row of a run's task list: the run's id and the row's key, base64url JSON. */
export function encodeTaskCursor(row: { run_id: string; key: string }): string {
  return Buffer.from(JSON.stringify([row.run_id, row.key])).toString('base64url');
}

/**
 * Reads a cursor made by {@link encodeTaskCursor} for this run's list: one
 * that encodes back to the same text and names this run and a key as the
 * kernel plants them; the key after which the page starts.
 * @throws AirlockError invalid_input for anything else (another run's cursor too).
 */
export function decodeTaskCursor(cursor: string, runId: string): string {
  const parts = readJson(cursor);
  if (
    !Array.isArray(parts) ||
    parts.length !== 2 ||
    parts[0] !== runId ||
    typeof parts[1] !== 'string' ||
    !TASK_KEY.test(parts[1]) ||
    encodeTaskCursor({ run_id: runId, key: parts[1] }) !== cursor
  ) {
    throw refused("run's task list");
  }
  return parts[1];
}

import { isStorableText } from '@airlock/core';
import { AirlockError } from '../errors.js';
import type { DeliveryCursor } from '../store/notifications.js';

/**
 * Names the outbox list in its cursors: a runs cursor is (created_at, id) too,
 * and each list refuses the other's (docs/limits.md).
 */
const LIST = 'deliveries';

/** The cursor after a delivery of the outbox list: its (created_at, id), base64url JSON. */
export function encodeDeliveryCursor(row: { created_at: number; id: string }): string {
  return Buffer.from(JSON.stringify([LIST, row.created_at, row.id])).toString('base64url');
}

/**
 * Reads a cursor made by {@link encodeDeliveryCursor}: one that names this
 * list and encodes back to the same text, whose id no store would refuse
 * (NUL, on PostgreSQL) or read otherwise, so every store answers a made-up
 * cursor alike.
 * @throws AirlockError invalid_input for anything else.
 */
export function decodeDeliveryCursor(cursor: string): DeliveryCursor {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parts = null;
  }
  if (
    !Array.isArray(parts) ||
    parts.length !== 3 ||
    parts[0] !== LIST ||
    !Number.isSafeInteger(parts[1]) ||
    typeof parts[2] !== 'string' ||
    !isStorableText(parts[2]) ||
    encodeDeliveryCursor({ created_at: parts[1], id: parts[2] }) !== cursor
  ) {
    throw new AirlockError(
      'invalid_input',
      'cursor: not a cursor this notifications list returned',
      [
        {
          code: 'invalid_cursor',
          pointer: '/cursor',
          message: 'not a cursor this notifications list returned; pass a next_cursor as it came',
        },
      ],
    );
  }
  return { createdAt: parts[1] as number, id: parts[2] };
}

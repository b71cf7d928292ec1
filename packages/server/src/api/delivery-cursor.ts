import { isStorableText } from '@airlock/core';
import { AirlockError } from '../errors.js';
import type { DeliveryCursor } from '../store/notifications.js';

/** The cursor after a delivery of the outbox list: its (created_at, id), base64url JSON. */
export function encodeDeliveryCursor(row: { created_at: number; id: string }): string {
  return Buffer.from(JSON.stringify([row.created_at, row.id])).toString('base64url');
}

/**
 * Reads a cursor made by {@link encodeDeliveryCursor}: one that encodes back
 * to the same text, whose id no store would refuse (NUL, on PostgreSQL) or
 * read otherwise, so every store answers a made-up cursor alike.
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
    parts.length !== 2 ||
    !Number.isSafeInteger(parts[0]) ||
    typeof parts[1] !== 'string' ||
    !isStorableText(parts[1]) ||
    encodeDeliveryCursor({ created_at: parts[0], id: parts[1] }) !== cursor
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
  return { createdAt: parts[0] as number, id: parts[1] };
}

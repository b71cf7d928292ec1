import { describe, expect, it } from 'vitest';
import { AirlockError } from '../errors.js';
import { asStoreError, StoreUnavailableError } from './store-errors.js';

/** An error as a driver throws it: a message and a code. */
function failure(code: string, message = 'failed', severity?: string): Error {
  return Object.assign(new Error(message), { code, ...(severity ? { severity } : {}) });
}

describe('asStoreError', () => {
  it('reads a full disk, a read-only store, I/O errors, a lost database and a refused session as store_unavailable', () => {
    for (const [code, reason] of [
      ['SQLITE_FULL', 'disk full'],
      ['SQLITE_IOERR_WRITE', 'SQLITE_IOERR_WRITE'],
      ['SQLITE_READONLY', 'SQLITE_READONLY'],
      ['SQLITE_BUSY', 'SQLITE_BUSY'],
      ['53100', 'disk full'],
      ['25006', 'read-only'],
      ['57P01', 'PostgreSQL 57P01'],
      ['57P04', 'PostgreSQL 57P04'],
      ['57P05', 'PostgreSQL 57P05'],
      ['3D000', 'database not found: 3D000'],
      ['55000', 'database not accepting connections: 55000'],
      ['28000', 'login refused: 28000'],
      // The test cluster trusts every login: a wrong password is read from its code here only.
      ['28P01', 'password authentication failed: 28P01'],
      ['42501', 'permission to connect refused: 42501'],
      ['08006', 'PostgreSQL 08006'],
      ['ECONNREFUSED', 'database unreachable: ECONNREFUSED'],
    ]) {
      // PostgreSQL refuses a session at severity FATAL (55000 is unavailable only then).
      const mapped = asStoreError(failure(code!, 'failed', 'FATAL'));
      expect(mapped).toBeInstanceOf(StoreUnavailableError);
      expect((mapped as StoreUnavailableError).code).toBe('store_unavailable');
      expect((mapped as StoreUnavailableError).status).toBe(503);
      expect((mapped as StoreUnavailableError).retryAfterSeconds).toBe(5);
      expect((mapped as StoreUnavailableError).detail).toContain(`(${reason})`);
    }
    expect(asStoreError(new Error('Connection terminated unexpectedly'))).toBeInstanceOf(
      StoreUnavailableError,
    );
  });

  it('reads text PostgreSQL cannot store (U+0000) as invalid_input, nothing changed', () => {
    for (const code of ['22021', '22P05']) {
      const mapped = asStoreError(failure(code, 'invalid byte sequence for encoding "UTF8": 0x00'));
      expect(mapped).toBeInstanceOf(AirlockError);
      expect(mapped).not.toBeInstanceOf(StoreUnavailableError);
      expect((mapped as AirlockError).code).toBe('invalid_input');
      expect((mapped as AirlockError).status).toBe(400);
      expect((mapped as AirlockError).detail).toMatch(/U\+0000.*nothing was changed/);
      expect((mapped as AirlockError).detail).not.toContain('0x00');
    }
  });

  it('reads an index entry PostgreSQL refuses as too long (54000) as invalid_input, nothing changed', () => {
    const mapped = asStoreError(
      failure(
        '54000',
        'index row size 3040 exceeds btree version 4 maximum 2704 for index "tasks_open_by_tool"',
      ),
    );
    expect((mapped as AirlockError).code).toBe('invalid_input');
    expect((mapped as AirlockError).detail).toMatch(
      /too long for PostgreSQL to index.*nothing was changed/,
    );
    // Another limit of the same code is an error to see.
    const other = failure('54000', 'array size exceeds the maximum allowed (134217727)');
    expect(asStoreError(other)).toBe(other);
  });

  it('leaves every other failure as it was: a constraint, a syntax error, a kernel error', () => {
    const others = [
      failure('SQLITE_CONSTRAINT_UNIQUE'),
      failure('SQLITE_ERROR'),
      failure('23505'),
      failure('42601'),
      // A statement's own 55000 (not the server refusing the session) is an error to see.
      failure('55000', 'currval of sequence "s" is not yet defined in this session', 'ERROR'),
      failure('42501', 'permission denied for table runs', 'ERROR'),
      new AirlockError('task_not_waiting', 'x'),
      'not an error',
    ];
    for (const error of others) expect(asStoreError(error)).toBe(error);
  });
});

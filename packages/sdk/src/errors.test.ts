import { ERROR_CODES, ERROR_STATUS } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  DeadlineExceededError,
  errorFromBody,
  FeedResyncError,
  ForbiddenError,
  isConflictError,
  isConnectionError,
  isDeadlineExceededError,
  isLeaseLostError,
  LeaseLostError,
  NotFoundError,
  RequestRefusedError,
  ServerError,
  UnauthorizedError,
  ValidationError,
} from './errors.js';

describe('errorFromBody', () => {
  it('picks the class by the server code and keeps code, detail, status and problems', () => {
    const problems = [{ code: 'too_small', pointer: '/limit', message: 'too small' }];
    const error = errorFromBody(
      { error: { code: 'invalid_input', detail: '/limit: too small', problems } },
      400,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({
      code: 'invalid_input',
      detail: '/limit: too small',
      status: 400,
    });
    expect((error as ValidationError).problems).toEqual(problems);
    expect(errorFromBody({ error: { code: 'task_not_found', detail: 'x' } }, 404)).toBeInstanceOf(
      NotFoundError,
    );
  });

  it("maps the kernel's hardening codes to their classes", () => {
    const typed = (code: string, status: number) =>
      errorFromBody({ error: { code, detail: 'x' } }, status);
    expect(typed('input_too_deep', 400)).toBeInstanceOf(ValidationError);
    expect(typed('version_mismatch', 409)).toBeInstanceOf(ConflictError);
    expect(typed('rate_limited', 429)).toBeInstanceOf(RequestRefusedError);
    expect(typed('request_timeout', 408)).toBeInstanceOf(RequestRefusedError);
  });

  it('falls back on the HTTP status when the code says nothing more', () => {
    expect(errorFromBody({ error: { code: 'internal', detail: 'x' } }, 413)).toBeInstanceOf(
      RequestRefusedError,
    );
    expect(errorFromBody(null, 409)).toBeInstanceOf(ConflictError);
    // A proxy in front of the kernel answers these in its own words (an HTML page, no code).
    expect(errorFromBody(null, 429)).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(errorFromBody(null, 429)).toBeInstanceOf(RequestRefusedError);
    expect(errorFromBody(null, 408)).toBeInstanceOf(RequestRefusedError);
    expect(errorFromBody(null, 410)).toBeInstanceOf(FeedResyncError);
    expect(errorFromBody(null, 503)).toMatchObject({ code: 'unavailable', status: 503 });
    const unknown = errorFromBody({ error: { code: 'brand_new', detail: 'x' } }, 500);
    expect(unknown).toBeInstanceOf(ServerError);
    expect(unknown.code).toBe('brand_new');
  });

  it("gives a code it does not know (a newer kernel's) the class of its status, keeping the code", () => {
    const typed = (status: number) =>
      errorFromBody({ error: { code: 'brand_new', detail: 'x' } }, status);
    expect(typed(409)).toBeInstanceOf(ConflictError);
    expect(isConflictError(typed(409))).toBe(true);
    expect(typed(403)).toBeInstanceOf(ForbiddenError);
    expect(typed(404)).toBeInstanceOf(NotFoundError);
    expect(typed(400)).toBeInstanceOf(ValidationError);
    expect(typed(429)).toBeInstanceOf(RequestRefusedError);
    expect(typed(401)).toBeInstanceOf(UnauthorizedError);
    for (const status of [409, 403, 404, 400, 429, 401, 503]) {
      expect(typed(status)).toMatchObject({ code: 'brand_new', status });
    }
    expect(typed(503)).toBeInstanceOf(ServerError);
    expect(typed(418)).toBeInstanceOf(ServerError);
  });

  it("keeps not_claimable's ran output, and null for a kernel that sends none or another shape", () => {
    const refused = (ran?: unknown) =>
      errorFromBody({ error: { code: 'not_claimable', detail: 'x', ran } }, 409) as ConflictError;
    expect(refused({ output: 'build\n' }).ran).toEqual({ output: 'build\n' });
    expect(refused().ran).toBeNull();
    expect(refused({ output: 3 }).ran).toBeNull();
  });

  it("keeps lease_lost's claim, and null for a kernel that sends none or another shape", () => {
    const lost = (claim?: unknown) =>
      errorFromBody({ error: { code: 'lease_lost', detail: 'x', claim } }, 409) as LeaseLostError;
    expect(lost({ task_state: 'succeeded', committed: true }).claim).toEqual({
      task_state: 'succeeded',
      committed: true,
    });
    expect(lost().claim).toBeNull();
    expect(lost({ task_state: 'succeeded', committed: 'yes' }).claim).toBeNull();
    expect(lost('committed').claim).toBeNull();
  });

  it('guards work across copies of the SDK by name and brand', () => {
    const lost = errorFromBody({ error: { code: 'lease_lost', detail: 'x' } }, 409);
    expect(lost).toBeInstanceOf(LeaseLostError);
    const copy = Object.assign(Object.create(null), lost, { name: 'LeaseLostError' });
    Object.defineProperty(copy, Symbol.for('@airlock/sdk.error'), { value: true });
    expect(isLeaseLostError(copy)).toBe(true);
    expect(isConflictError(copy)).toBe(true);
    expect(isConflictError({ name: 'ConflictError' })).toBe(false);
  });

  it('a timeout is its own mode and a connection error too, across copies', () => {
    const timeout = new DeadlineExceededError('no answer within 5 ms', 5);
    expect(timeout).toMatchObject({ code: 'deadline_exceeded', status: null, timeoutMs: 5 });
    expect(timeout.message).toBe('deadline_exceeded: no answer within 5 ms');
    const copy = Object.assign(Object.create(null), timeout, { name: 'DeadlineExceededError' });
    Object.defineProperty(copy, Symbol.for('@airlock/sdk.error'), { value: true });
    expect(isDeadlineExceededError(copy)).toBe(true);
    expect(isConnectionError(copy)).toBe(true);
  });
});

describe('every code of the kernel table', () => {
  it('gets the class of its failure mode; only internal and the unavailable ones are server errors', () => {
    for (const code of ERROR_CODES) {
      const error = errorFromBody({ error: { code, detail: 'x' } }, ERROR_STATUS[code]);
      expect({ code, server: error instanceof ServerError }).toEqual({
        code,
        server: ['internal', 'unavailable', 'store_unavailable', 'migrations_pending'].includes(
          code,
        ),
      });
      expect(error.code).toBe(code);
    }
  });

  it('reads a person’s invalid answer as a validation error, a missing credential as not found', () => {
    for (const code of ['invalid_resolution', 'invalid_question'] as const) {
      expect(errorFromBody({ error: { code, detail: 'x' } }, 422)).toBeInstanceOf(ValidationError);
    }
    for (const code of ['credential_not_found', 'agent_application_not_found'] as const) {
      expect(errorFromBody({ error: { code, detail: 'x' } }, 404)).toBeInstanceOf(NotFoundError);
    }
  });
});

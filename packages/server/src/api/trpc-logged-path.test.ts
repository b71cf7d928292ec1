import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { capturedLogger } from '../testing/log-lines.js';
import { createAppRouter } from './trpc.js';
import type { TrpcContext } from './trpc-errors.js';
import { loggedProcedure } from './trpc-logged-procedure.js';

/** The router's own error formatter, as tRPC calls it for a failed call at `path`. */
function formatFailure(path: string, ctx: TrpcContext): void {
  const router = createAppRouter({ pingMs: 1_000 });
  const format = router._def._config.errorFormatter;
  format({
    error: new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: new Error('boom') }),
    type: 'query',
    path,
    input: undefined,
    ctx,
    shape: {
      message: 'boom',
      code: -32603,
      data: { code: 'INTERNAL_SERVER_ERROR', httpStatus: 500, path },
    },
  });
}

/**
 * The log line of a call that failed unexpectedly names its procedure: the path a caller sent
 * is its own text (any length, control characters), so only a name the router knows is
 * repeated as it is; another is cut and escaped.
 */
describe("the tRPC adapter's log line for an unexpected failure", () => {
  const { logger, lines } = capturedLogger();
  const ctx = { kernel: { context: { logger } }, noteError: () => {} } as unknown as TrpcContext;

  it('names a known procedure as it is', () => {
    formatFailure('runs.list', ctx);
    expect(lines.at(-1)).toMatchObject({ msg: 'request failed', operation: 'runs.list' });
    formatFailure('runs.feed', ctx);
    expect(lines.at(-1)).toMatchObject({ operation: 'runs.feed' });
    expect(loggedProcedure('executor.cable')).toBe('unknown procedure "executor.cable"');
  });

  it('bounds and escapes a path that names no procedure', () => {
    const sent = `\u001b[2J\u001b[31mFORGED\n${'x'.repeat(100_000)}`;
    formatFailure(sent, ctx);
    const operation = String(lines.at(-1)!.operation);
    expect(operation.length).toBeLessThan(200);
    expect(operation).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(operation).toContain('FORGED');
    expect(operation).toBe(loggedProcedure(sent));
  });
});

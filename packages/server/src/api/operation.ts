import { COMMON_ERROR_CODES, type ErrorCode, type OperationContract } from '@airlock/core';
import type { z } from 'zod';
import type { Kernel } from '../kernel/kernel.js';
import type { Principal } from '../store/accounts.js';

export { pathParams } from '@airlock/core';

/** What a handler runs with: the kernel, the authenticated caller, and whether the caller still waits. */
export interface OperationContext {
  kernel: Kernel;
  principal: Principal;
  /**
   * Aborted when the client that sent the request gave up before its answer
   * was written (it closed the connection): an operation that holds a
   * request (a hook waiting for a person) stops and takes nothing the
   * client would never read. REST and tRPC pass it; absent where the caller
   * is not an HTTP request.
   */
  signal?: AbortSignal | undefined;
  /**
   * Set when a hook event's body was past its limit and read with each long
   * string cut to its start (see readHookBody): a tool check must not be
   * decided on a cut input. REST sets it; absent elsewhere.
   */
  bodyCut?: boolean | undefined;
}

/** One operation: its contract from @airlock/core and the server's handler. */
export interface Operation<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType>
  extends OperationContract<I, O> {
  handle(context: OperationContext, input: z.output<I>): Promise<z.input<O>>;
}

/** Binds a handler to an operation contract of @airlock/core. */
export function implement<I extends z.ZodObject, O extends z.ZodType>(
  contract: OperationContract<I, O>,
  handle: Operation<I, O>['handle'],
): Operation<I, O> {
  return { ...contract, handle };
}

/** True when an operation declares it may answer this code (its own or a common one). */
export function declaresCode(
  operation: Pick<OperationContract, 'errors'>,
  code: ErrorCode,
): boolean {
  return (
    (COMMON_ERROR_CODES as readonly ErrorCode[]).includes(code) || operation.errors.includes(code)
  );
}

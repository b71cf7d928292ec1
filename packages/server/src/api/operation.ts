import type { z } from 'zod';
import type { Kernel } from '../kernel/kernel.js';
import type { CredentialKind, Principal } from '../store/accounts.js';

/** What a handler runs with: the kernel and the authenticated caller. */
export interface OperationContext {
  kernel: Kernel;
  principal: Principal;
}

/** One operation, defined once and served by REST, tRPC and the OpenAPI document alike. */
export interface Operation<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  /** Dotted name: the tRPC path and the OpenAPI operationId. */
  name: string;
  summary: string;
  method: 'GET' | 'POST' | 'PUT';
  /** REST path with `{param}` segments named like input fields. */
  path: string;
  /** Which credential kinds may call it; any other gets 403. */
  planes: readonly CredentialKind[];
  /** HTTP status of a success; default 200. */
  status?: number;
  /**
   * The output's array field that REST answers as JSON lines
   * (`application/x-ndjson`, one element a line); tRPC answers the object.
   */
  jsonLines?: string;
  input: I;
  output: O;
  handle(context: OperationContext, input: z.output<I>): Promise<z.input<O>>;
}

/** Defines an operation (a typed identity, so each definition keeps its own types). */
export function defineOperation<I extends z.ZodObject, O extends z.ZodType>(
  operation: Operation<I, O>,
): Operation<I, O> {
  return operation;
}

/** The `{param}` names in a REST path. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!);
}

import { OPERATION_ROUTES } from '@airlock/core/wire';
import { createCall } from '../call.js';
import type { RequestOptions } from './deadline.js';
import {
  type ConnectionOptions,
  type OperationsClient,
  retryingReads,
  trpcQuery,
} from './transport.js';

/**
 * Makes the typed client of a kernel's operations. A read goes as tRPC's GET
 * (`?input=` carries any input as JSON); a write goes over its REST route
 * (path parameters in the path, the rest as the JSON body), which the kernel
 * serves straight from Node's request, without the Fetch `Request` that its
 * tRPC adapter builds for every call: about a millisecond less per write on
 * a small machine, on every check and report of the framework adapters and
 * every submit, claim and commit of an executor. Both answer the same
 * errors (an AirlockError subclass per failure mode), and each takes a
 * signal and a timeout.
 * @throws ValidationError `invalid_input` for options it cannot send with (createCall checks them).
 */
export function createOperations(options: ConnectionOptions): OperationsClient {
  const fetcher = retryingReads(options.fetch);
  const write = createCall(options) as (
    name: string,
    input: unknown,
    request?: RequestOptions,
  ) => Promise<unknown>;
  const groups: Record<string, Record<string, unknown>> = {};
  for (const [name, route] of Object.entries(OPERATION_ROUTES)) {
    const [group, procedure] = name.split('.') as [string, string];
    groups[group] = {
      ...groups[group],
      [procedure]:
        route.method === 'GET'
          ? {
              query: (input: unknown, request?: RequestOptions) =>
                trpcQuery(options, fetcher, name, input, request),
            }
          : {
              mutate: (input: unknown, request?: RequestOptions) =>
                write(name, input ?? {}, request),
            },
    };
  }
  return groups as unknown as OperationsClient;
}

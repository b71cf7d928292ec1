import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
// The server's index does not export its router type yet; this is the one place that reaches
// into its source. Swap for `import type { AppRouter } from '@airlock/server'` once it does.
import type { AppRouter } from '../../../server/src/api/trpc.js';

export type { AppRouter };

/** Every operation's input, by router path. */
export type RouterInputs = inferRouterInputs<AppRouter>;

/** Every operation's output, by router path. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;

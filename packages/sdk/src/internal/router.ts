import type { AppRouter } from '@airlock/server';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';

export type { AppRouter };

/** Every operation's input, by router path. */
export type RouterInputs = inferRouterInputs<AppRouter>;

/** Every operation's output, by router path. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;

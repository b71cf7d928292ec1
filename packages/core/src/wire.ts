/**
 * `@airlock/core/wire`: what a client needs to reach the kernel (each operation's method and
 * path, the live feeds' paths), with no schema behind it. The SDK sends its requests with these,
 * so an application or page that bundles it does not load every contract's Zod schemas; the
 * types still come from `@airlock/core` (type-only imports cost nothing at run time).
 */
export { bearerTokenOf } from './protocol/bearer.js';
export {
  CALL_ID_MAX,
  CALL_NAME_MAX,
  DENY_REASON_MAX,
  GATEWAY_CLIENT_MAX,
} from './protocol/kernel-limits.js';
export { requestTargetUrl } from './protocol/request-target.js';
export {
  CLAIM_TOOL_NAMES_MAX,
  OPERATION_ROUTES,
  type OperationRoute,
  pathParams,
  SUBSCRIPTION_PATHS,
} from './protocol/routes.js';
export {
  EXECUTOR_CABLE_PATH,
  feedPathWorkspaceSegment,
  workspaceFeedPath,
} from './protocol/sockets.js';

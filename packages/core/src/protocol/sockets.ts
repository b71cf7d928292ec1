import { SUBSCRIPTION_PATHS } from './routes.js';

/**
 * The WebSocket paths of the kernel's two live feeds, from their contracts
 * (routes.ts), for the server that serves them and every client that
 * opens them.
 */

const FEED_PATH = SUBSCRIPTION_PATHS.feed;
const [FEED_PREFIX, FEED_SUFFIX] = FEED_PATH.split('{workspace_id}') as [string, string];

/** The member plane's workspace feed: lifecycle events and decisions, resumable by `?after=`. */
export function workspaceFeedPath(workspaceId: string): string {
  return `${FEED_PREFIX}${encodeURIComponent(workspaceId)}${FEED_SUFFIX}`;
}

/**
 * The workspace segment of a workspace feed path, still percent-encoded (the
 * server decodes it with its own error for a malformed one), or null when the
 * path is no workspace feed.
 */
export function feedPathWorkspaceSegment(path: string): string | null {
  if (!path.startsWith(FEED_PREFIX) || !path.endsWith(FEED_SUFFIX)) return null;
  const segment = path.slice(FEED_PREFIX.length, path.length - FEED_SUFFIX.length);
  return segment.length > 0 && !segment.includes('/') ? segment : null;
}

/** The executor plane's cable: `work_available` nudges and the executor's own events. */
export const EXECUTOR_CABLE_PATH = SUBSCRIPTION_PATHS['executor.cable'];

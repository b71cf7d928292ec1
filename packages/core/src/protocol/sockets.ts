/**
 * The WebSocket paths of the kernel's two live feeds, in one place for the
 * server that serves them and every client that opens them.
 */

/** The member plane's workspace feed: lifecycle events and decisions, resumable by `?after=`. */
export function workspaceFeedPath(workspaceId: string): string {
  return `/api/v1/workspaces/${encodeURIComponent(workspaceId)}/feed`;
}

/**
 * The workspace segment of a workspace feed path, still percent-encoded (the
 * server decodes it with its own error for a malformed one), or null when the
 * path is no workspace feed.
 */
export function feedPathWorkspaceSegment(path: string): string | null {
  const match = /^\/api\/v1\/workspaces\/([^/]+)\/feed$/.exec(path);
  return match ? (match[1] as string) : null;
}

/** The executor plane's cable: `work_available` nudges and the executor's own events. */
export const EXECUTOR_CABLE_PATH = '/executor_api/v1/cable';

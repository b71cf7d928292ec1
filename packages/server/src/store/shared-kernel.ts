import type { Store } from './store.js';

/** Whether the store holds a workspace other than `workspaceId` (a kernel several tenants share). */
export async function holdsOtherWorkspaces(store: Store, workspaceId: string): Promise<boolean> {
  const row = await store.db
    .selectFrom('workspaces')
    .select('id')
    .where('id', '!=', workspaceId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

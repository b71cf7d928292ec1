import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { listWorkspaces } from '../store/accounts.js';
import { SQLITE_FILE_NAME, Store, type StoreLocation } from '../store/store.js';

/** A store a command refuses to create: it was never started, or its path has a typo. */
export class MissingStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MissingStoreError';
  }
}

/**
 * How to run this CLI again: `pnpm exec airlock` in a checkout (the root
 * links the bin), `npx airlock` where it is installed, else `node path/cli.js`.
 */
export function selfCommand(): string {
  const script = process.argv[1] ?? 'airlock';
  if (existsSync(join(process.cwd(), 'node_modules', '.bin', 'airlock'))) {
    return existsSync(join(process.cwd(), 'pnpm-workspace.yaml'))
      ? 'pnpm exec airlock'
      : 'npx airlock';
  }
  if (/(^|\/)airlock$/.test(script)) return 'npx airlock';
  return `node ${relative(process.cwd(), script) || script}`;
}

/**
 * Opens a store that `airlock serve` created before, and never creates one:
 * a missing SQLite file or a database without a workspace is refused.
 * @throws MissingStoreError naming where it looked and what to run instead.
 */
export async function openExistingStore(location: StoreLocation): Promise<Store> {
  if (!location.databaseUrl) {
    const dir = resolve(location.dataDir ?? '.airlock');
    if (!existsSync(join(dir, SQLITE_FILE_NAME))) {
      throw new MissingStoreError(
        `no Airlock store in ${dir} (no ${SQLITE_FILE_NAME}); check --data-dir or AIRLOCK_DATA_DIR, ` +
          `or create it with \`${selfCommand()} serve --data-dir ${location.dataDir ?? '.airlock'}\``,
      );
    }
  }
  const store = await Store.open(location);
  if ((await listWorkspaces(store)).length === 0) {
    await store.close();
    throw new MissingStoreError(
      `the store ${store.description} has no workspace yet; start \`${selfCommand()} serve\` on it first`,
    );
  }
  return store;
}

import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The absolute path of the built inbox page (`packages/inbox/dist`), for a
 * server that serves it. Build it with `pnpm --filter @airlock/inbox build`.
 */
export function inboxDistDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  // Run from source this module is in src/; built, it is in dist/lib/.
  const packageRoot =
    basename(dirname(here)) === 'dist' ? join(here, '..', '..') : join(here, '..');
  return join(packageRoot, 'dist');
}

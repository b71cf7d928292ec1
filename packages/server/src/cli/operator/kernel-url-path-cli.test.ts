import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { runOperatorCli, sqliteBackend } from '../../testing/operator-cli.js';

const sqlite = await sqliteBackend();

// Each step starts the CLI in a child process: slow on a loaded machine, so a wide bound.
describe('a kernel URL with the API path in it', { timeout: 180_000 }, () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite);
  });
  afterAll(async () => {
    await d?.close();
  });

  it.each([['/api/v1'], ['/api/v1/'], ['/api']])(
    'says the URL is the base one when it ends in %s',
    async (path) => {
      // The banner's curl lines show .../api/v1/workspaces/...: a URL copied from them.
      const given = `${d.url}${path}`;
      const refused = await runOperatorCli({ ...d, url: given }, ['runs', 'list']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        `airlock: the kernel at ${given.replace(/\/$/, '')} has no route for this command: AIRLOCK_URL holds the path ${path.replace(/\/$/, '')}; give the kernel's base URL without it, such as ${d.url} (each command adds /api/v1/...)\n`,
      );
      const flagged = await runOperatorCli(d, ['runs', 'list', '--url', given]);
      expect(flagged.stderr).toContain(`--url holds the path ${path.replace(/\/$/, '')};`);
    },
  );
});

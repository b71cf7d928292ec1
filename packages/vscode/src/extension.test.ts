import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildExtension, PACKAGE_DIR as packageDir } from './testing/build-extension.js';
import { fakeVscode, loadExtension } from './testing/fake-vscode.js';

const CONFIG_GLOB = '**/rules-lint.config.{json,jsonc}';

beforeAll(async () => {
  // dist/extension.cjs (vscode-languageclient inside) and dist/server/server.mjs, as packaged.
  await buildExtension('build');
}, 300_000);

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the built extension, restarted by settings changes', () => {
  it('watches the configs with one watcher for every client, disposed with the extension', async () => {
    const host = fakeVscode();
    const extension = loadExtension(join(packageDir, 'dist', 'extension.cjs'), host);
    const subscriptions: { dispose(): unknown }[] = [];
    const context = { subscriptions, asAbsolutePath: (path: string) => join(packageDir, path) };
    await extension.activate(context);
    for (let restart = 1; restart <= 3; restart += 1) {
      host.changeConfiguration('airlockRulesLint');
      await until(() => extension.servers.length === restart + 1, `server ${restart + 1}`);
    }
    // As VS Code ends an extension: deactivate (it waits for the queued restarts), then its subscriptions.
    await extension.deactivate();
    for (const subscription of subscriptions) subscription.dispose();
    expect(host.errors).toEqual([]);

    // Four real servers started, one after another, and each has exited.
    await until(
      () => extension.servers.every((server) => server.exitCode !== null),
      'every server to exit',
    );
    expect(extension.servers.map((server) => server.exitCode)).toEqual([0, 0, 0, 0]);

    // One watcher for all four clients (each restart used to create one that nothing disposed).
    const configWatchers = host.watchers.filter((watcher) => watcher.glob === CONFIG_GLOB);
    expect(configWatchers).toEqual([{ glob: CONFIG_GLOB, disposed: true, liveListeners: 0 }]);
    // The watchers the servers registered dynamically are the library's, disposed with each client.
    expect(host.watchers.filter((watcher) => !watcher.disposed)).toEqual([]);
  });

  it('a stopped client stops listening to the shared watcher', async () => {
    const host = fakeVscode();
    const extension = loadExtension(join(packageDir, 'dist', 'extension.cjs'), host);
    const subscriptions: { dispose(): unknown }[] = [];
    await extension.activate({
      subscriptions,
      asAbsolutePath: (path: string) => join(packageDir, path),
    });
    const [watcher] = host.watchers;
    expect(watcher?.glob).toBe(CONFIG_GLOB);
    // One client: onDidCreate, onDidChange and onDidDelete.
    expect(watcher?.liveListeners).toBe(3);
    host.changeConfiguration('airlockRulesLint');
    host.changeConfiguration('editor');
    await until(() => extension.servers.length === 2, 'the restarted server');
    await extension.deactivate();
    expect(extension.servers).toHaveLength(2);
    expect(watcher?.liveListeners).toBe(0);
    for (const subscription of subscriptions) subscription.dispose();
    expect(watcher?.disposed).toBe(true);
  });
});

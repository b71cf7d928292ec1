import {
  createClient,
  createExecutor,
  type Executor,
  type RunView,
  type Workspace,
} from '@airlock/sdk';
import { createCredential } from '@airlock/server';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { CHROMIUM, LAUNCH_ARGS, mountInbox } from '../support/browser.js';
import { eventually, scriptedRun, startTestKernel, type TestKernel } from '../support/kernel.js';
import { ensureInboxBuilt } from './inbox-build.js';

/** What the test kernel starts with (an `openai` model's address, say). */
type KernelOptions = Parameters<typeof startTestKernel>[0];

/** One kernel serving the inbox, one Chromium, and a bash executor: what a browser test file shares. */
export interface InboxFixture {
  kernel: TestKernel;
  /** The worker's Chromium, shared with the files before and after this one: never closed by a test. */
  browser: Browser;
  /** The member client of the test workspace (the member the page signs in as). */
  ws: Workspace;
  /** The commands the bash executor ran, in order. */
  executed: string[];
  /** Console errors of every page since the last look (a test fails on any). */
  readonly consoleErrors: string[];
  /** The current page. */
  page: Page;
  /**
   * A new page already signed in as the workspace's member, at `path` (`#/`,
   * `#/runs/ID`); `init` runs in the page before its own script (a stub of a browser API),
   * `before` on the new page before it navigates (a route).
   */
  openSignedIn(
    path?: string,
    viewport?: { width: number; height: number },
    init?: () => void,
    before?: (page: Page) => Promise<void>,
  ): Promise<Page>;
  /** A new signed-in page on the waiting list, once its feed is live. */
  openInbox(viewport?: { width: number; height: number }): Promise<Page>;
  /** The run once it is no longer running. */
  ended(runId: string): Promise<RunView>;
  close(): Promise<void>;
}

/** Where the worker's Chromium is kept: on globalThis, so a fresh module graph per file finds it too. */
const WORKER_BROWSER = Symbol.for('airlock.tests.browser');
type BrowserHolder = { [WORKER_BROWSER]?: Promise<Browser> };

/**
 * The Chromium of this test worker, launched by its first browser test file:
 * a launch costs a second or more, a context almost nothing. The files of one
 * worker run one after another, each in contexts of its own that it closes at
 * its end. A browser that crashed or closed is launched again for the next file.
 */
export function workerBrowser(): Promise<Browser> {
  const holder = globalThis as BrowserHolder;
  const current = holder[WORKER_BROWSER];
  if (current) return current;
  const launching = chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
  holder[WORKER_BROWSER] = launching;
  const forget = () => {
    if (holder[WORKER_BROWSER] === launching) delete holder[WORKER_BROWSER];
  };
  launching.then((browser) => browser.on('disconnected', forget), forget);
  return launching;
}

/**
 * Builds the page (once for every file), starts a kernel with the inbox in
 * front of it, a bash executor that answers `removed`, and takes the worker's Chromium.
 */
async function startInboxFixture(
  viewport = { width: 1000, height: 900 },
  kernelOptions: KernelOptions = {},
): Promise<InboxFixture> {
  await ensureInboxBuilt();
  const kernel = await startTestKernel(kernelOptions);
  mountInbox(kernel);
  const ws = createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
    kernel.workspace.id,
  );
  const executed: string[] = [];
  const executor: Executor = createExecutor({
    url: kernel.url,
    token: kernel.workspace.tokens.executor,
    tools: {
      bash: (input: { command: string }) => {
        executed.push(input.command);
        return 'removed';
      },
    },
  });
  const browser = await workerBrowser();
  const consoleErrors: string[] = [];
  // Every page's errors land in one list, so a page closed mid-test still fails that test.
  const watch = (watched: Page) => {
    watched.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    watched.on('pageerror', (error) => consoleErrors.push(error.message));
  };
  const page = await browser.newPage({ viewport });
  watch(page);
  const fixture: InboxFixture = {
    kernel,
    browser,
    ws,
    executed,
    consoleErrors,
    page,
    async openSignedIn(path = '#/', size = viewport, init, before) {
      await fixture.page.close();
      const opened = await browser.newPage({ viewport: size });
      fixture.page = opened;
      watch(opened);
      await opened.addInitScript(
        (session) => sessionStorage.setItem('airlock.inbox.session', JSON.stringify(session)),
        {
          url: kernel.url,
          workspaceId: kernel.workspace.id,
          token: kernel.workspace.tokens.member,
        },
      );
      if (init) await opened.addInitScript(init);
      await before?.(opened);
      await opened.goto(`${kernel.url}/${path}`);
      return opened;
    },
    async openInbox(size = viewport) {
      const opened = await fixture.openSignedIn('#/', size);
      await opened.locator('.status[data-status="live"]').waitFor();
      return opened;
    },
    ended: (runId) =>
      eventually(async () => {
        const run = await ws.runs.run(runId).get();
        return run.state !== 'running' && run;
      }),
    async close() {
      // Every page this file opened (a test's own `browser.newPage` too): the next file starts clean.
      await Promise.all(browser.contexts().map((context) => context.close()));
      await executor.close({ abort: true });
      await kernel.close();
    },
  };
  return fixture;
}

/**
 * Registers the fixture's life in the calling `describe`: started in
 * `beforeAll` (a `beforeAll` registered after this runs after it), closed in
 * `afterAll`, and after each test any console error of any page fails that
 * test (a CSP refusal, an uncaught exception). Answers a handle that reads
 * the started fixture.
 */
export function useInboxFixture(
  viewport?: { width: number; height: number },
  startTimeoutMs = 120_000,
  kernelOptions?: KernelOptions,
): InboxFixture {
  let current: InboxFixture | undefined;
  beforeAll(async () => {
    current = await startInboxFixture(viewport, kernelOptions);
  }, startTimeoutMs);
  afterEach(() => {
    if (current) expect(current.consoleErrors.splice(0)).toEqual([]);
  });
  afterAll(async () => {
    await current?.close();
  });
  return new Proxy({} as InboxFixture, {
    get(_, key) {
      if (!current) throw new Error('the inbox fixture is used before its beforeAll started it');
      const value: unknown = Reflect.get(current, key);
      return typeof value === 'function' ? value.bind(current) : value;
    },
  });
}

/** Starts a run of `calls` write calls in one round, each parked by mode ask. */
export function parkedWrites(ws: Workspace, label: string, calls: number): Promise<RunView> {
  return ws.runs.create(
    scriptedRun('ask', [
      {
        tool_calls: Array.from({ length: calls }, (_, i) => ({
          name: 'write',
          input: { path: `${label}/file-${i}.txt`, content: `line one\nline two of ${i}\n` },
        })),
      },
      { final: 'written' },
    ]),
  );
}

/**
 * Adds a second member named `label`, who puts the workspace's approval policy: a group
 * `leads` of the signed-in member and themself, with the rules `rules` gives for their id.
 */
export async function secondLeadWithPolicy(
  f: InboxFixture,
  label: string,
  rules: (credentialId: string) => unknown[],
) {
  const me = await f.ws.self();
  // An admin: the lead sets the approval policy below.
  const lead = await createCredential(f.kernel.airlock.store, {
    workspaceId: f.kernel.workspace.id,
    kind: 'member',
    role: 'admin',
    label,
  });
  const id = lead.credential.credential_id;
  const put = await fetch(
    `${f.kernel.url}/api/v1/workspaces/${f.kernel.workspace.id}/approval_policy`,
    {
      method: 'PUT',
      headers: { authorization: `Bearer ${lead.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        policy: { groups: { leads: [me.credential_id, id] }, rules: rules(id) },
      }),
    },
  );
  expect(put.status).toBe(200);
  return lead;
}

/**
 * Parks a run of `release` calls, one per version, that two leads must approve: the signed-in
 * member and a second lead named `label` (see {@link secondLeadWithPolicy}). Answers the lead
 * and the run once its last call waits.
 */
export async function parkReleaseForLeads(f: InboxFixture, label: string, versions: string[]) {
  const lead = await secondLeadWithPolicy(f, label, () => [
    { tool: 'release', approvers: ['group:leads'], required: 2 },
  ]);
  const run = await f.ws.runs.create(
    scriptedRun('ask', [
      { tool_calls: versions.map((version) => ({ name: 'release', input: { version } })) },
      { final: 'done' },
    ]),
  );
  const last = `t${versions.length}`;
  await eventually(async () => (await f.ws.runs.run(run.id).task(last)).state === 'needs_approval');
  return { lead, run };
}

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInboxHandler, inboxDistDir } from '@airlock/inbox';
import { createClient, createExecutor, type Executor } from '@airlock/sdk';
import { type Browser, chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, scriptedRun, startTestKernel, type TestKernel } from '../support/kernel.js';
import { askUnsupportedReason } from '../support/probes.js';

const CHROMIUM = '/usr/bin/chromium';
const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const screenshotPath = join(repoRoot, 'docs', 'img', 'inbox.png');
const skip = existsSync(CHROMIUM) ? null : `${CHROMIUM} is absent (apt-get install -y chromium)`;
if (skip) console.warn(`[airlock tests] skipping the browser test: ${skip}`);

/**
 * Keeps the docs' screenshot: written when missing or when
 * AIRLOCK_UPDATE_SCREENSHOTS=1, so a test run leaves the tree clean.
 */
async function saveScreenshot(page: Page): Promise<void> {
  const image = await page.screenshot({ fullPage: true });
  expect(image.length).toBeGreaterThan(1000);
  if (existsSync(screenshotPath) && process.env.AIRLOCK_UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(dirname(screenshotPath), { recursive: true });
  writeFileSync(screenshotPath, image);
}

/** Puts the inbox's static handler in front of the kernel's own request handler. */
function mountInbox(kernel: TestKernel): void {
  const server = kernel.airlock.http.server;
  const [kernelHandler] = server.listeners('request') as ((
    req: IncomingMessage,
    res: ServerResponse,
  ) => void)[];
  const inbox = createInboxHandler();
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!inbox(req, res)) kernelHandler?.(req, res);
  });
}

describe.skipIf(skip !== null)('the web inbox in headless Chromium', () => {
  let kernel: TestKernel;
  let browser: Browser;
  let page: Page;
  let executor: Executor;
  let askSkip: string | null = null;
  const executed: string[] = [];

  beforeAll(async () => {
    await build({
      configFile: join(repoRoot, 'packages', 'inbox', 'vite.config.ts'),
      logLevel: 'warn',
    });
    expect(existsSync(join(inboxDistDir(), 'index.html'))).toBe(true);
    kernel = await startTestKernel();
    mountInbox(kernel);
    askSkip = await askUnsupportedReason(kernel);
    if (askSkip) console.warn(`[airlock tests] skipping the inbox question test: ${askSkip}`);
    executor = createExecutor({
      url: kernel.url,
      token: kernel.workspace.tokens.executor,
      tools: {
        bash: (input: { command: string }) => {
          executed.push(input.command);
          return 'removed';
        },
      },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
    page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  });
  afterAll(async () => {
    await browser?.close();
    await executor?.close({ abort: true });
    await kernel?.close();
  });

  it('bundles the SDK for the browser without Node built-ins or the ws fallback', () => {
    const assets = join(inboxDistDir(), 'assets');
    const scripts = readdirSync(assets).filter((name) => name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    for (const name of scripts) {
      const code = readFileSync(join(assets, name), 'utf8');
      expect(code).not.toMatch(/["']node:[a-z]/);
      expect(code).not.toMatch(/from\s*["']ws["']|require\(["']ws["']\)/);
    }
  });

  it('shows a parked run live, approves it with a click, and the run continues', async () => {
    const ws = createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    );
    const answer = await page.goto(kernel.url);
    expect(answer?.headers()['content-type']).toBe('text/html; charset=utf-8');
    await page.getByLabel('Workspace id').fill(kernel.workspace.id);
    await page.getByLabel('Member token').fill(kernel.workspace.tokens.member);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.status[data-status="live"]').waitFor();
    await expect(page.locator('.empty').isVisible()).resolves.toBe(true);

    // Parked after the page signed in: the card must arrive over the feed.
    const cleanup = await ws.runs.create(
      scriptedRun(
        'rules',
        [
          {
            tool_calls: [
              {
                name: 'bash',
                input: { command: 'rm -rf ./build && curl -sO https://example.com/x.tgz' },
              },
            ],
          },
          { final: 'The build directory is clean.', expect: 'removed' },
        ],
        [
          { tool: 'bash', path: 'command', match: 'ls*', verdict: 'allow' },
          { tool: 'bash', path: 'command', match: '*rm -rf*', verdict: 'ask' },
        ],
      ),
    );
    const other = await ws.runs.create(
      scriptedRun('ask', [
        {
          tool_calls: [
            { name: 'write', input: { path: 'config/deploy.yaml', content: 'replicas: 3\n' } },
          ],
        },
        { final: 'not written' },
      ]),
    );
    const card = page.locator(`[data-decision="${cleanup.id}/t1"]`);
    const otherCard = page.locator(`[data-decision="${other.id}/t1"]`);
    await card.waitFor();
    await otherCard.waitFor();
    const text = (await card.textContent()) ?? '';
    expect(text).toContain('bash');
    expect(text).toContain('$ rm -rf ./build && curl -sO https://example.com/x.tgz');
    expect(text).toContain('delete');
    expect(text).toContain('network');
    expect(text).toContain('#1 ask bash when command matches "*rm -rf*"');
    expect(await otherCard.textContent()).toContain('Parked by mode ask');
    await saveScreenshot(page);

    // Decided elsewhere: the card disappears live.
    const [elsewhere] = (await ws.decisions.list()).filter((d) => d.run_id === other.id);
    if (!elsewhere?.isApproval()) throw new Error('expected a parked call');
    await elsewhere.deny({ reason: 'not today' });
    await otherCard.waitFor({ state: 'detached' });

    await card.getByRole('button', { name: 'Approve' }).click();
    await card.waitFor({ state: 'detached' });
    const ended = await eventually(async () => {
      const run = await ws.runs.run(cleanup.id).get();
      return run.state !== 'running' && run;
    });
    expect(ended).toMatchObject({
      state: 'completed',
      final_answer: 'The build directory is clean.',
    });
    expect(executed).toEqual(['rm -rf ./build && curl -sO https://example.com/x.tgz']);
    expect((await ws.runs.run(cleanup.id).task('t1')).decided_by).toMatch(/^member:/);
    await page.locator('.empty').waitFor();
  });

  it('denies from the page with a reason the model reads', async () => {
    const ws = createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    );
    const created = await ws.runs.create(
      scriptedRun('ask', [
        { tool_calls: [{ name: 'publish', input: { package: '@acme/app', tag: 'latest' } }] },
        { final: 'held back', expect: 'wait for the release review' },
      ]),
    );
    const card = page.locator(`[data-decision="${created.id}/t1"]`);
    await card.waitFor();
    await card.getByLabel('deny reason').fill('wait for the release review');
    await card.getByRole('button', { name: 'Deny' }).click();
    await card.waitFor({ state: 'detached' });
    const ended = await eventually(async () => {
      const run = await ws.runs.run(created.id).get();
      return run.state !== 'running' && run;
    });
    expect(ended).toMatchObject({ state: 'completed', final_answer: 'held back' });
  });

  it('answers a question by one of its options', async (context) => {
    if (askSkip) {
      context.skip(askSkip);
      return;
    }
    const ws = createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    );
    const created = await ws.runs.create(
      scriptedRun('ask', [
        {
          tool_calls: [
            { name: 'ask', input: { prompt: 'Deploy when?', options: ['Now', 'Later'] } },
          ],
        },
        { final: 'deploying', expect: 'Now' },
      ]),
    );
    const card = page.locator(`[data-decision="${created.id}/t1"]`);
    await card.waitFor();
    expect(await card.textContent()).toContain('Deploy when?');
    await card.getByRole('button', { name: 'Now' }).click();
    await card.waitFor({ state: 'detached' });
    const ended = await eventually(async () => {
      const run = await ws.runs.run(created.id).get();
      return run.state !== 'running' && run;
    });
    expect(ended).toMatchObject({ state: 'completed', final_answer: 'deploying' });
  });
});

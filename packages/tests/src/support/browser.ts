import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInboxHandler } from '@airlock/inbox';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestKernel } from './kernel.js';

/** Debian's Chromium, driven by playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';
/** Flags for a headless Chromium on a machine with no network beyond loopback. */
export const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/** The repository's root. */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

/** Why the browser tests cannot run here, or null when they can. */
export const browserSkipReason = existsSync(CHROMIUM)
  ? null
  : `${CHROMIUM} is absent (apt-get install -y chromium)`;

/**
 * Keeps a screenshot under docs/img: written when missing or when
 * AIRLOCK_UPDATE_SCREENSHOTS=1 (`pnpm screenshots`), so a test run leaves the tree clean.
 */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  const image = await page.screenshot({ fullPage: true });
  expect(image.length).toBeGreaterThan(1000);
  const path = join(repoRoot, 'docs', 'img', name);
  if (existsSync(path) && process.env.AIRLOCK_UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, image);
}

/** Puts the inbox's static handler in front of the kernel's own request handler. */
export function mountInbox(kernel: TestKernel): void {
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

/** Every console error and uncaught page error of a page, as text. */
export function collectConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

/** One axe-core violation, cut to what a failing assertion should show. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core in the page against WCAG 2.1 A and AA. The script is handed
 * over through the DevTools protocol, so the page's CSP stays strict.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // Once a page: a page checked again (after an edit, a new state) keeps the axe it loaded.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(...args: unknown[]): Promise<unknown> } })
      .axe;
    const result = (await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      // Violations are reported whole; passes and checks that do not apply (which nothing
      // here reads) keep one node each: a warm check took 70-260 ms instead of 250-700 ms.
      resultTypes: ['violations'],
    })) as {
      violations: {
        id: string;
        impact: string | null;
        help: string;
        nodes: { target: string[] }[];
      }[];
    };
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
  });
}

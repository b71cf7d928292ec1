import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inboxDistDir } from './dist-dir.js';
import { createInboxHandler } from './serve.js';

describe('createInboxHandler', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  async function serve(distDir: string): Promise<string> {
    const handler = createInboxHandler({ distDir });
    const server: Server = createServer((req, res) => {
      if (!handler(req, res)) {
        res.writeHead(418);
        res.end('kernel');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => server.close());
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  function dist(): string {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-inbox-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  it('serves the page and its assets with their content types, and nothing else', async () => {
    const dir = dist();
    mkdirSync(join(dir, 'assets'));
    mkdirSync(join(dir, 'lib'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>inbox</title>');
    writeFileSync(join(dir, 'assets', 'index-abc.js'), 'console.log(1)');
    writeFileSync(join(dir, 'assets', 'index-abc.css'), 'body{}');
    writeFileSync(join(dir, 'lib', 'index.js'), 'export {}');
    const url = await serve(dir);
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await page.text()).toContain('<title>inbox</title>');
    const script = await fetch(`${url}/assets/index-abc.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toContain('immutable');
    const style = await fetch(`${url}/assets/index-abc.css`, { method: 'HEAD' });
    expect([style.status, style.headers.get('content-type')]).toEqual([
      200,
      'text/css; charset=utf-8',
    ]);
    for (const path of [
      '/api/v1/workspaces/x/runs',
      '/lib/index.js',
      '/assets/../lib/index.js',
      '/healthz',
    ]) {
      expect((await fetch(`${url}${path}`)).status, path).toBe(418);
    }
    expect((await fetch(`${url}/`, { method: 'POST' })).status).toBe(418);
  });

  it('answers 503 with the build command for the page while it is not built', async () => {
    const url = await serve(join(dist(), 'missing'));
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(503);
    expect(await page.text()).toContain('pnpm --filter @airlock/inbox build');
    expect((await fetch(`${url}/assets/x.js`)).status).toBe(418);
  });

  it('serves a page built again under it, with its new assets', async () => {
    const dir = dist();
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<script src="./assets/index-old.js"></script>');
    writeFileSync(join(dir, 'assets', 'index-old.js'), 'old');
    const url = await serve(dir);
    expect((await fetch(`${url}/assets/index-old.js`)).status).toBe(200);
    // A build since: new asset names, and a new index.html naming them.
    writeFileSync(join(dir, 'assets', 'index-new.js'), 'new');
    writeFileSync(join(dir, 'index.html'), '<script src="./assets/index-new.js"></script>');
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'index.html'), later, later);
    expect(await (await fetch(`${url}/`)).text()).toContain('index-new.js');
    const script = await fetch(`${url}/assets/index-new.js`);
    expect([script.status, await script.text()]).toEqual([200, 'new']);
    // Not built since: a missing asset is still not the inbox's.
    expect((await fetch(`${url}/assets/index-gone.js`)).status).toBe(418);
  });

  it('locates the dist directory beside the package', () => {
    expect(inboxDistDir()).toBe(join(import.meta.dirname, '..', 'dist'));
  });
});

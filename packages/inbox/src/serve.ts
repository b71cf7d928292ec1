import { createReadStream, readdirSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, relative, sep } from 'node:path';
import { inboxDistDir } from './dist-dir.js';

/** Serves the inbox: answers true when it took the request, false when it is not for the inbox. */
export type InboxHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Options of {@link createInboxHandler}. */
export interface InboxHandlerOptions {
  /** The built page; default {@link inboxDistDir}. */
  distDir?: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    // The feed's WebSocket is same-origin; 'self' covers ws: and wss: on the page's host.
    "connect-src 'self'",
    "manifest-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; '),
};

function listFiles(root: string): Set<string> {
  const files = new Set<string>();
  const walk = (dir: string) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files.add(`/${relative(root, path).split(sep).join('/')}`);
    }
  };
  walk(root);
  // Only the page and its assets: dist/ also holds the Node helper (dist/lib) and build state.
  for (const file of files) {
    if (file !== '/index.html' && !file.startsWith('/assets/')) files.delete(file);
  }
  return files;
}

/** When the page was last built (its index.html written), or null while it is not built. */
function builtAt(root: string): number | null {
  try {
    return statSync(join(root, 'index.html')).mtimeMs;
  } catch {
    return null;
  }
}

/**
 * Makes the static-file handler of the inbox page: `GET /` (and `/index.html`)
 * answer the page, and every file of the build answers with its content type.
 * Any other request is left alone (false), so it can sit in front of the
 * kernel's own handler. The file list is read once, and again when the page was built since.
 */
export function createInboxHandler(options: InboxHandlerOptions = {}): InboxHandler {
  const root = options.distDir ?? inboxDistDir();
  let files = listFiles(root);
  let built = builtAt(root);
  // A build under a running kernel writes a new index.html naming new assets: a page or an asset
  // the list lacks has the list read again when the page was built since it was read.
  const relistWhenRebuilt = () => {
    const now = builtAt(root);
    if (now === built) return;
    built = now;
    files = listFiles(root);
  };
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    } catch {
      return false;
    }
    const page = pathname === '/' || pathname === '/index.html';
    const file = page ? '/index.html' : pathname;
    if (!files.has(file) && (page || file.startsWith('/assets/'))) relistWhenRebuilt();
    if (!files.has(file)) {
      if (!page) return false;
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
      res.end('The inbox page is not built: run `pnpm --filter @airlock/inbox build`.\n');
      return true;
    }
    const path = join(root, ...file.split('/'));
    let size: number;
    try {
      size = statSync(path).size;
    } catch {
      files = listFiles(root);
      return false;
    }
    res.writeHead(200, {
      'content-type': CONTENT_TYPES[extname(path)] ?? 'application/octet-stream',
      'content-length': size,
      'cache-control': file.startsWith('/assets/')
        ? 'public, max-age=31536000, immutable'
        : 'no-cache',
      ...SECURITY_HEADERS,
    });
    if (req.method === 'HEAD') {
      res.end();
      return true;
    }
    createReadStream(path)
      .on('error', () => res.destroy())
      .pipe(res);
    return true;
  };
}

/*
 * The floor of a kernel, for bench-mcp-floor.ts: an HTTP server on loopback that answers each
 * POST with a grant only after writing RECORD_PAGES pages (13 by default, the WAL frames a
 * granted submit's COMMIT writes) to a file and fsyncing it (RECORD_SYNC=0 skips the fsync), as
 * a COMMIT at full durability records a decision. Nothing else: no routes, no checks, no SQL.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const file = process.env.RECORD_FILE;
const pages = Number(process.env.RECORD_PAGES ?? 13);
const sync = process.env.RECORD_SYNC !== '0';
const fd = file ? openSync(file, 'w') : null;
const page = Buffer.alloc(4096, 7);
/** Where the next record goes: appended, wrapping at 4 MiB as a WAL is reset. */
let offset = 0;

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const asked = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: unknown };
    if (fd !== null) {
      for (let i = 0; i < pages; i += 1) writeSync(fd, page, 0, page.length, offset + i * 4096);
      offset = (offset + pages * 4096) % (4096 * 1024);
      if (sync) fsyncSync(fd);
    }
    const body = JSON.stringify({ verdict: 'allow', id: asked.id });
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('disconnect', () => {
  server.close();
  if (fd !== null) closeSync(fd);
  process.exit(0);
});

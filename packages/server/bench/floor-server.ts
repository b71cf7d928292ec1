/**
 * The floors the kernel is measured against, each a bare server process:
 *   http    node:http answering the round trip's two POSTs (parse, answer JSON), no store
 *   frames  a ws server writing pre-serialized event frames to every connected socket
 * Started by the benchmark as `node --import tsx bench/floor-server.ts http|frames`; it prints
 * `listening PORT` and runs until killed.
 */
import { createServer } from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';

const mode = process.argv[2];

function httpFloor(): void {
  let next = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as unknown;
      next += 1;
      const id = `run_${next}`;
      const answer = req.url?.endsWith('/approve')
        ? { key: 't1', state: 'runnable', body }
        : { id, state: 'running', attention: [{ blocked_task_keys: ['t1'] }], body };
      const text = JSON.stringify(answer);
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address && typeof address === 'object') console.log(`listening ${address.port}`);
  });
}

/**
 * Writes batches of eight frames (a commit's worth) to every socket, corked,
 * as fast as the slowest socket drains: the most a feed could deliver here.
 */
function framesFloor(): void {
  const frame = JSON.stringify({
    type: 'event',
    event: {
      seq: 1,
      run_id: 'run_0mx3wjy8kGbB4gTReot4WxOI',
      task_key: 't1',
      type: 'task.granted',
      data: { granted_by: 'rule', matched: [0], state: 'runnable' },
      principal: null,
      created_at: Date.now(),
    },
  });
  const server = createServer();
  const wss = new WebSocketServer({ server });
  const sockets = new Set<WebSocket>();
  wss.on('connection', (socket) => {
    sockets.add(socket);
    socket.send(JSON.stringify({ type: 'ready', after: 0 }));
    socket.on('close', () => sockets.delete(socket));
  });
  const pump = () => {
    let backlog = false;
    for (const socket of sockets) {
      if (socket.readyState !== WebSocket.OPEN) continue;
      if (socket.bufferedAmount > 256 * 1024) {
        backlog = true;
        continue;
      }
      const raw = (socket as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
      raw?.cork();
      for (let i = 0; i < 8; i += 1) socket.send(frame);
      raw?.uncork();
    }
    setTimeout(pump, backlog ? 1 : 0);
  };
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address && typeof address === 'object') console.log(`listening ${address.port}`);
    pump();
  });
}

if (mode === 'http') httpFloor();
else if (mode === 'frames') framesFloor();
else {
  console.error('usage: floor-server.ts http|frames');
  process.exit(2);
}

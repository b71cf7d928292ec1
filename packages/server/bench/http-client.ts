import { Agent, request } from 'node:http';

/** The fields the benchmark reads from answers. */
export interface Answer {
  id: string;
  key: string;
  state: string;
  attention: { blocked_task_keys: string[] }[];
}

/**
 * One keep-alive connection per client: raw `http.request` is much lighter on
 * the shared CPUs than fetch (undici), and it is still real HTTP over loopback.
 */
const keepAlive = new Agent({ keepAlive: true, maxSockets: 1024 });

/** POSTs JSON with a bearer token and parses the JSON answer; rejects on a status of 300 or more. */
export function post(base: string, token: string, path: string, body: unknown): Promise<Answer> {
  const payload = JSON.stringify(body);
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent: keepAlive,
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((response.statusCode ?? 500) >= 300) {
            reject(new Error(`${path}: ${response.statusCode} ${text}`));
            return;
          }
          resolve(JSON.parse(text) as Answer);
        });
        response.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The value at a percentile of sorted numbers. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

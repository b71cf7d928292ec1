import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { packageDir } from './server-process.js';
import { openSubscribers } from './subscribers.js';

/** Starts a floor server (bench/floor-server.ts) and returns its URL. */
export async function startFloor(
  mode: 'http' | 'frames',
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [...process.execArgv, join(packageDir, 'bench/floor-server.ts'), mode],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk) => {
      text += chunk;
      const found = /listening (\d+)/.exec(text);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`floor ${mode} exited ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/** Stops a child process and waits for it to exit. */
export async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

/** Frames per second the bare ws floor delivers to `count` sockets, over `seconds`. */
export async function framesFloor(count: number, seconds: number): Promise<number> {
  const floor = await startFloor('frames');
  try {
    const subscribers = await openSubscribers({
      url: floor.url,
      workspaceId: 'floor',
      token: 'floor',
      count,
      kind: 'all',
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const start = subscribers.received();
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const rate = (subscribers.received() - start) / ((performance.now() - started) / 1000);
    await subscribers.close();
    return rate;
  } finally {
    await stop(floor.child);
  }
}

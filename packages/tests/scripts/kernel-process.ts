/*
 * Forks a bench's kernel (inbox-kernel.ts) and speaks to it over the IPC channel.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestWorkspace } from '../src/support/kernel.js';

/** The forked kernel, as the bench sees it. */
export interface KernelProcess {
  url: string;
  workspace: TestWorkspace;
  /** The kernel process's id. */
  pid: number | undefined;
  /** The kernel process's CPU time so far (user + system), in ms. */
  cpuMs(): Promise<number>;
  /** The kernel's resident set and V8 heap in use after a full garbage collection, in bytes. */
  memory(): Promise<{ rss: number; heapUsed: number }>;
  /** Starts a V8 CPU profile of the kernel (sampling every `intervalUs`, V8's default 1000). */
  startProfile(intervalUs?: number): Promise<void>;
  /** Stops the profile and writes it (a `.cpuprofile` file, for Chromium's DevTools). */
  stopProfile(file: string): Promise<void>;
  close(): Promise<void>;
}

/** How the forked kernel runs. */
export interface KernelProcessOptions {
  /** The store's durability (default `full`: an fsync at every COMMIT). */
  durability?: 'full' | 'relaxed';
  /** Serve the built web inbox in front of the kernel (default true). */
  inbox?: boolean;
}

/** Starts the kernel in a child process, by default with the inbox mounted in front of it. */
export async function forkKernel(options: KernelProcessOptions = {}): Promise<KernelProcess> {
  const child = fork(fileURLToPath(new URL('./inbox-kernel.ts', import.meta.url)), {
    execArgv: ['--conditions=source', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: {
      ...process.env,
      BENCH_KERNEL_DURABILITY: options.durability ?? 'full',
      BENCH_KERNEL_INBOX: options.inbox === false ? '0' : '1',
    },
  });
  const waiting = new Map<number, (value: unknown) => void>();
  let serial = 0;
  const ready = new Promise<{ url: string; workspace: TestWorkspace }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bench's kernel exited (${code})`)));
    child.on('message', (message: { ready?: { url: string; workspace: TestWorkspace } }) => {
      if (message.ready) resolve(message.ready);
    });
  });
  child.on('message', (message: { id?: number; value?: unknown }) => {
    if (message.id === undefined) return;
    waiting.get(message.id)?.(message.value);
    waiting.delete(message.id);
  });
  const ask = (op: string, file?: string, intervalUs?: number) =>
    new Promise<unknown>((resolve) => {
      serial += 1;
      waiting.set(serial, resolve);
      child.send({ id: serial, op, file, intervalUs });
    });
  const { url, workspace } = await ready;
  return {
    url,
    workspace,
    pid: child.pid,
    cpuMs: async () => Number(await ask('cpu')),
    memory: async () => (await ask('memory')) as { rss: number; heapUsed: number },
    startProfile: async (intervalUs) => void (await ask('profile-start', undefined, intervalUs)),
    stopProfile: async (file) => void (await ask('profile-stop', file)),
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await ask('close');
      await exited;
    },
  };
}

import { createClient, type Workspace } from '@airlock/sdk';
import type { AirlockOptions } from '@airlock/server';
import { afterAll, beforeAll } from 'vitest';
import { startTestKernel, type TestKernel } from './kernel.js';

/** A test file's kernel, and its workspace as the member reads it. */
export interface MemberKernel {
  /** The kernel, once the file's beforeAll ran. */
  readonly kernel: TestKernel;
  /** The workspace through a client with the member token. */
  workspace(): Workspace;
}

/** Registers a kernel for the calling test file: started before its tests, closed after them. */
export function useMemberKernel(
  options: Omit<AirlockOptions, 'dataDir' | 'databaseUrl'> = {},
): MemberKernel {
  let kernel: TestKernel | undefined;
  beforeAll(async () => {
    kernel = await startTestKernel(options);
  });
  afterAll(async () => {
    await kernel?.close();
  });
  const started = (): TestKernel => {
    if (!kernel) throw new Error('the kernel starts in beforeAll: use it inside a test');
    return kernel;
  };
  return {
    get kernel() {
      return started();
    },
    workspace: () =>
      createClient({ url: started().url, token: started().workspace.tokens.member }).workspace(
        started().workspace.id,
      ),
  };
}

/** What a promise rejects with; fails when it fulfils. */
export function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/** Settles as the promise does, or rejects when it is still pending after `ms` (instead of hanging). */
export function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms),
    ),
  ]);
}

import {
  createClient,
  createExecutor,
  type Executor,
  type ExecutorOptions,
  type Runs,
  type RunView,
} from '@airlock/sdk';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from './kernel.js';

/** What a test file's kernel is started with. */
type KernelOptions = Parameters<typeof startTestKernel>[0];

/** A test file's kernel for executor tests, and the executors its tests start. */
export interface ExecutorKernel {
  /** The kernel, once the file's beforeAll ran. */
  readonly kernel: TestKernel;
  /** Starts an executor with the workspace's executor token; it is closed (abort) after the test. */
  start(tools: ExecutorOptions['tools'], options?: Partial<ExecutorOptions>): Executor;
  /** The workspace's runs, as its member reads them. */
  runs(): Runs;
  /** Waits for a run to leave `running` and answers it as it ended. */
  ended(runId: string, timeoutMs?: number): Promise<RunView>;
}

/**
 * Registers a kernel for the calling test file (started before its tests,
 * with `options`, and closed after them) and closes the executors each test
 * started after it.
 */
export function useExecutorKernel(options: KernelOptions = {}): ExecutorKernel {
  let kernel: TestKernel | undefined;
  const executors: Executor[] = [];
  beforeAll(async () => {
    kernel = await startTestKernel(options);
  });
  afterEach(async () => {
    for (const executor of executors.splice(0)) await executor.close({ abort: true });
  });
  afterAll(async () => {
    await kernel?.close();
  });
  const started = (): TestKernel => {
    if (!kernel) throw new Error('the kernel starts in beforeAll: use it inside a test');
    return kernel;
  };
  const runs = () =>
    createClient({ url: started().url, token: started().workspace.tokens.member }).workspace(
      started().workspace.id,
    ).runs;
  return {
    get kernel() {
      return started();
    },
    start(tools, executorOptions = {}) {
      const executor = createExecutor({
        url: started().url,
        token: started().workspace.tokens.executor,
        ...executorOptions,
        tools,
      });
      executors.push(executor);
      return executor;
    },
    runs,
    ended: (runId, timeoutMs = 10_000) =>
      eventually(
        async () => {
          const view = await runs().run(runId).get();
          return view.state !== 'running' && view;
        },
        { timeoutMs, what: `run ${runId} to end` },
      ),
  };
}

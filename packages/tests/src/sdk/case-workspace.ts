import {
  createClient,
  createExecutor,
  type Executor,
  type ExecutorOptions,
  type Runs,
  type RunView,
} from '@airlock/sdk';
import type { ExecutorKernel } from '../support/executor-kernel.js';
import { eventually } from '../support/kernel.js';

/** What a case that runs beside others uses of a file's kernel: its own workspace. */
export type CaseWorkspace = Pick<ExecutorKernel, 'start' | 'runs' | 'ended'>;

let made = 0;

/**
 * A fresh workspace on the file's kernel for one case, so that cases running
 * side by side (`it.concurrent`) neither claim nor read each other's rows; the
 * executors the case starts are closed (abort) when it ends. Pass the case's
 * own `onTestFinished` (from its context), which concurrent cases need.
 */
export async function caseWorkspace(
  fixture: ExecutorKernel,
  onTestFinished: (close: () => Promise<void>) => void,
): Promise<CaseWorkspace> {
  const { kernel } = fixture;
  made += 1;
  const workspace = await kernel.addWorkspace(`case-${made}`);
  const executors: Executor[] = [];
  onTestFinished(async () => {
    for (const executor of executors) await executor.close({ abort: true });
  });
  const runs = (): Runs =>
    createClient({ url: kernel.url, token: workspace.tokens.member }).workspace(workspace.id).runs;
  return {
    start(tools: ExecutorOptions['tools'], options: Partial<ExecutorOptions> = {}) {
      const executor = createExecutor({
        url: kernel.url,
        token: workspace.tokens.executor,
        ...options,
        tools,
      });
      executors.push(executor);
      return executor;
    },
    runs,
    ended: (runId: string, timeoutMs = 10_000): Promise<RunView> =>
      eventually(
        async () => {
          const view = await runs().run(runId).get();
          return view.state !== 'running' && view;
        },
        { timeoutMs, what: `run ${runId} to end` },
      ),
  };
}

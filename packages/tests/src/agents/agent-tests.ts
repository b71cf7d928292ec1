import { afterEach } from 'vitest';
import { type AgentName, missingAgentReason } from './agent-binaries.js';

/** What a test starts and must stop: a sandbox, a kernel, an executor. */
interface Closable {
  close(): Promise<void>;
}

/** One agent's tests in a describe block: whether they run here, and what each test started. */
export interface AgentTests {
  /** Why the agent's binary is missing here (its tests skip; said once), or undefined. */
  readonly missing: string | undefined;
  /**
   * Closes `resource` after the running test, even one that failed halfway, the last held
   * first; returns it.
   */
  hold<T extends Closable>(resource: T): T;
}

/**
 * Called in a describe body: warns once when `agent` is not installed, and after each test
 * closes what the test held (every one, even when one close throws: the first error is thrown).
 */
export function agentTests(agent: AgentName): AgentTests {
  const missing = missingAgentReason(agent);
  if (missing) console.warn(`skipping ${agent}: ${missing}`);
  const held: Closable[] = [];
  afterEach(async () => {
    const errors: unknown[] = [];
    for (const resource of held.splice(0).reverse()) {
      await resource.close().catch((error: unknown) => errors.push(error));
    }
    if (errors.length > 0) throw errors[0];
  });
  return {
    missing,
    hold(resource) {
      held.push(resource);
      return resource;
    },
  };
}

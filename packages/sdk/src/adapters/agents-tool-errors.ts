// How the adapter learns that a function tool's execute threw when `tool()` caught it and handed
// the model its errorFunction's text: the application's own errorFunction returns any text, so
// only the Agents SDK's own record tells. `tool()` marks the current trace span with
// `setError({ message: 'Error running tool (non-fatal)', data: { tool_name, error } })` before
// it calls the errorFunction; the span lives in the SDK's AsyncLocalStorage, shared through a
// global symbol, so the adapter runs the invoke under a span that forwards to the runner's own
// and notes that mark.

const STORAGE = Symbol.for('openai.agents.core.asyncLocalStorage');
const TOOL_FAILED = 'Error running tool (non-fatal)';

interface SpanStorage {
  getStore(): unknown;
  run<R>(store: unknown, run: () => R): R;
}

interface TraceStore {
  active?: unknown;
  span?: object;
}

/** What a tool's invoke threw, as `tool()` told its span; null when it did not throw. */
export interface CaughtThrow {
  /** The thrown value as text (`String(error)`), as the Agents SDK records it. */
  text: string;
}

/**
 * Runs a function tool's invoke, noting the throw `tool()` caught and turned into its
 * errorFunction's output. Outside a run of the Agents SDK (no span to stand beside) it runs
 * the invoke alone and notes nothing.
 */
export async function invokeNotingThrow<T>(
  toolName: string,
  invoke: () => Promise<T>,
): Promise<{ output: T; caught: CaughtThrow | null }> {
  const storage = (globalThis as Record<symbol, unknown>)[STORAGE] as SpanStorage | undefined;
  const store =
    typeof storage?.getStore === 'function'
      ? (storage.getStore() as TraceStore | undefined)
      : undefined;
  if (!storage || store?.active !== true || typeof store.span !== 'object') {
    return { output: await invoke(), caught: null };
  }
  const caught: { value: CaughtThrow | null } = { value: null };
  const span = store.span;
  const noting = new Proxy(span, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (property === 'setError' && typeof value === 'function') {
        return (error: unknown) => {
          const mark = readMark(error, toolName);
          if (mark !== null) caught.value = mark;
          return (value as (error: unknown) => unknown).call(target, error);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const output = await storage.run({ ...store, span: noting }, invoke);
  return { output, caught: caught.value };
}

/** The throw a span's error mark tells of, when it is `tool()`'s mark for this tool. */
function readMark(error: unknown, toolName: string): CaughtThrow | null {
  if (typeof error !== 'object' || error === null) return null;
  const { message, data } = error as { message?: unknown; data?: unknown };
  if (message !== TOOL_FAILED || typeof data !== 'object' || data === null) return null;
  const { tool_name: name, error: text } = data as { tool_name?: unknown; error?: unknown };
  if (name !== toolName) return null;
  return { text: typeof text === 'string' ? text : 'the tool threw' };
}

import { thrownText } from './output-text.js';
import {
  type CallVerdict,
  type FrameworkCall,
  type FrameworkSession,
  grantedCall,
} from './session.js';

/** True for an `async function*`: the AI SDK streams what such a tool's `execute` yields. */
export function isAsyncGeneratorFunction(value: unknown): boolean {
  return Object.prototype.toString.call(value) === '[object AsyncGeneratorFunction]';
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

/**
 * What a tool's `execute` gave back, settled: for one that returned an async
 * iterable without being an `async function*` (the adapter could not stream
 * it through), the iterable run to its end and its last value, the one the
 * AI SDK takes as the tool's output.
 */
export async function settled(result: unknown): Promise<unknown> {
  const value = await result;
  if (!isAsyncIterable(value)) return value;
  let last: unknown;
  for await (const output of value) last = output;
  return last;
}

/**
 * Runs a granted streaming tool: yields what it yields (the AI SDK's
 * preliminary results), and once it ends reports its last value as what it
 * returned (the AI SDK's final output), or what it threw midway as a failure.
 * @throws what the tool threw.
 */
export async function* runGrantedStream(
  session: FrameworkSession,
  call: FrameworkCall,
  verdict: CallVerdict,
  execute: (input: unknown) => AsyncIterable<unknown>,
): AsyncGenerator<unknown, void, undefined> {
  const ran = grantedCall(call, verdict);
  let last: unknown;
  let ended = false;
  try {
    for await (const output of execute(ran.input)) {
      last = output;
      yield output;
    }
    ended = true;
  } catch (error) {
    ended = true;
    await session.ran(ran, { ok: false, output: thrownText(error) });
    throw error;
  } finally {
    // Left before its end (whoever read it stopped, an aborted stream): it did not finish.
    if (!ended)
      await session.ran(ran, { ok: false, output: 'the tool was stopped before its end' });
  }
  await session.ran(ran, { ok: true, output: last });
}

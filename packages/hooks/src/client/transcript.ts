// Read by the hook process on the agent's machine only: the kernel never opens a path an
// agent names. No import of @airlock/core at run time (zod would slow every hook process).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { HookedAgent, HookedRanCall } from '@airlock/core';
import { shellExitFailed } from '../agents/gemini.js';

/** How much of a transcript's end is read: a turn's calls sit at the end of the file. */
export const TRANSCRIPT_TAIL_BYTES = 8 * 1024 * 1024;

/** Most calls one stop lists (the kernel's `HOOKED_RAN_CALLS_MAX`; a test keeps them equal). */
export const RAN_CALLS_MAX = 500;

/** How much of a call's output is sent (the run story keeps 2 KiB of it). */
const OUTPUT_MAX_CHARS = 2048;

/** The largest input sent with a call (as JSON); a larger one goes without, matched by tool alone. */
const INPUT_MAX_CHARS = 4096;

type Entry = Record<string, unknown>;

/** The complete lines at the end of a file, at most `TRANSCRIPT_TAIL_BYTES` of it; `cut` when the file goes back further. */
function tailLines(path: string): { lines: string[]; cut: boolean } {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    // One byte before the tail tells whether the tail starts on a line of its own.
    const start = Math.max(0, size - TRANSCRIPT_TAIL_BYTES - 1);
    const buffer = Buffer.alloc(size - start);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    const lines = buffer.subarray(0, read).toString('utf8').split('\n');
    // A tail that starts mid-file starts mid-line (or on the line break before a whole one):
    // that first piece is not a whole entry.
    return start > 0 ? { lines: lines.slice(1), cut: true } : { lines, cut: false };
  } finally {
    closeSync(fd);
  }
}

function entries(path: string): { entries: Entry[]; cut: boolean } {
  const parsed: Entry[] = [];
  const tail = tailLines(path);
  for (const line of tail.lines) {
    if (!line.trim()) continue;
    try {
      const value = JSON.parse(line) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value)) parsed.push(value as Entry);
    } catch {
      // A line still being written, or one this reader does not know: skip it.
    }
  }
  return { entries: parsed, cut: tail.cut };
}

const isObject = (value: unknown): value is Entry =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A tool result's content as text: a string, or the text of its blocks. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((block) => (isObject(block) && typeof block.text === 'string' ? block.text : ''))
      .join('');
  }
  if (isObject(content) && typeof content.content === 'string') return content.content;
  return '';
}

/** Collects a turn's calls in the order they were made, with their results as they arrive. */
class TurnCalls {
  private calls = new Map<string, HookedRanCall>();
  /** Whether the turn's start was read: the calls listed are then all of the turn's. */
  started = false;

  /** A new turn starts: the calls before it are not this stop's. */
  reset(): void {
    this.calls = new Map();
    this.started = true;
  }

  called(id: unknown, name: unknown, input?: unknown): void {
    if (typeof id !== 'string' || !id || typeof name !== 'string' || !name) return;
    if (this.calls.has(id)) return;
    const call: HookedRanCall = { tool_use_id: id, tool_name: name };
    // The input goes along where the hooks carry no call id (the kernel matches by it), if small.
    if (input !== undefined) {
      const text = JSON.stringify(input);
      if (text !== undefined && text.length <= INPUT_MAX_CHARS) call.tool_input = input as never;
    }
    this.calls.set(id, call);
  }

  returned(id: unknown, failed: boolean | undefined, output: string): void {
    if (typeof id !== 'string') return;
    const call = this.calls.get(id);
    if (!call) return;
    if (failed !== undefined) call.outcome = failed ? 'failed' : 'succeeded';
    call.output = output.slice(0, OUTPUT_MAX_CHARS);
  }

  list(): HookedRanCall[] {
    return [...this.calls.values()].slice(-RAN_CALLS_MAX);
  }
}

/**
 * Claude Code's transcript (JSONL): a `user` entry with a prompt starts a
 * turn; `assistant` entries carry `tool_use` blocks, `user` entries their
 * `tool_result` blocks (`is_error` when the call failed or was refused).
 */
function claudeCodeCalls(lines: Entry[]): TurnCalls {
  const turn = new TurnCalls();
  for (const entry of lines) {
    const message = isObject(entry.message) ? entry.message : null;
    if (!message) continue;
    const content = message.content;
    if (entry.type === 'user') {
      const blocks = Array.isArray(content) ? content.filter(isObject) : [];
      const results = blocks.filter((block) => block.type === 'tool_result');
      if (results.length === 0) {
        // A prompt (text, not a tool's result), outside a subagent's own thread: a new turn.
        if (entry.isSidechain !== true && entry.isMeta !== true) turn.reset();
        continue;
      }
      for (const block of results) {
        turn.returned(block.tool_use_id, block.is_error === true, contentText(block.content));
      }
    } else if (entry.type === 'assistant' && Array.isArray(content)) {
      for (const block of content.filter(isObject)) {
        if (block.type === 'tool_use') turn.called(block.id, block.name);
      }
    }
  }
  return turn;
}

/**
 * The exit code in the header of a Codex call's output (before its
 * `Output:` line): an exec's `Process exited with code N`, a patch's
 * `Exit code: N`. What the call printed after it is never read as one.
 */
function codexExitCode(output: string): string | undefined {
  const body = output.indexOf('\nOutput:');
  const header = body === -1 ? output : output.slice(0, body);
  const code = /^(?:Process exited with code|Exit code:) (-?\d+)$/m.exec(header);
  return code?.[1];
}

/**
 * Codex's rollout (JSONL): `task_started` starts a turn; `response_item`
 * entries carry the model's calls (`function_call`, `custom_tool_call`) and
 * their outputs, matched by `call_id`. An exec's output names its exit code,
 * and so does a patch that was applied; for other outputs (an MCP tool, a
 * patch refused before it was applied) the outcome is left unknown.
 */
function codexCalls(lines: Entry[]): TurnCalls {
  const turn = new TurnCalls();
  for (const entry of lines) {
    const payload = isObject(entry.payload) ? entry.payload : null;
    if (!payload) continue;
    if (entry.type === 'event_msg' && payload.type === 'task_started') {
      turn.reset();
      continue;
    }
    if (entry.type !== 'response_item') continue;
    if (payload.type === 'function_call' || payload.type === 'custom_tool_call') {
      turn.called(payload.call_id, payload.name);
    } else if (
      payload.type === 'function_call_output' ||
      payload.type === 'custom_tool_call_output'
    ) {
      const output = contentText(payload.output);
      const code = codexExitCode(output);
      turn.returned(payload.call_id, code === undefined ? undefined : code !== '0', output);
    }
  }
  return turn;
}

/** A Gemini CLI call's result as text: its function response's `output`, else the response as JSON. */
function geminiOutput(call: Entry): string {
  const parts = Array.isArray(call.result) ? call.result.filter(isObject) : [];
  const texts = parts.map((part) => {
    const response = isObject(part.functionResponse) ? part.functionResponse.response : undefined;
    if (isObject(response) && typeof response.output === 'string') return response.output;
    return response === undefined ? '' : (JSON.stringify(response) ?? '');
  });
  const text = texts.join('\n');
  return text || (typeof call.resultDisplay === 'string' ? call.resultDisplay : '');
}

/**
 * Gemini CLI's chat recording (JSONL): a `user` entry with a prompt (text,
 * not function responses) starts a turn; `gemini` entries carry `toolCalls`
 * with their arguments, status and result (an entry is written again as its
 * calls complete). A cancelled call did not run. Its hooks carry no call id,
 * so each call goes with its input for the kernel to match a row by.
 */
function geminiCalls(lines: Entry[]): TurnCalls {
  const turn = new TurnCalls();
  for (const entry of lines) {
    if (entry.type === 'user') {
      const parts = Array.isArray(entry.content) ? entry.content.filter(isObject) : [];
      if (!parts.some((part) => part.functionResponse !== undefined)) turn.reset();
      continue;
    }
    if (entry.type !== 'gemini' || !Array.isArray(entry.toolCalls)) continue;
    for (const call of entry.toolCalls.filter(isObject)) {
      if (call.status === 'cancelled') continue;
      turn.called(call.id, call.name, call.args ?? {});
      if (call.status !== 'success' && call.status !== 'error') continue;
      const output = geminiOutput(call);
      const exitFailed = call.name === 'run_shell_command' && shellExitFailed(output);
      turn.returned(call.id, call.status === 'error' || exitFailed, output);
    }
  }
  return turn;
}

/**
 * The calls the agent's own transcript shows it made in the current turn,
 * with their outcome and output where the transcript already holds them;
 * undefined when the agent keeps no transcript Airlock reads, the file
 * cannot be read, or the turn began before the end of the file that is
 * read (a turn that wrote more than `TRANSCRIPT_TAIL_BYTES`, such as a
 * large file written): a list missing the turn's first calls would have
 * the kernel close those, unreported, as not run, where they may have run.
 * Never throws: a stop must not fail for want of a transcript.
 */
export function readTranscriptCalls(
  agent: HookedAgent,
  path: unknown,
): HookedRanCall[] | undefined {
  if (typeof path !== 'string' || !path) return undefined;
  const read = { 'claude-code': claudeCodeCalls, codex: codexCalls, gemini: geminiCalls }[agent];
  try {
    const tail = entries(path);
    const turn = read(tail.entries);
    return tail.cut && !turn.started ? undefined : turn.list();
  } catch {
    return undefined;
  }
}

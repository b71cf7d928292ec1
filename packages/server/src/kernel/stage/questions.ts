import { asKeptText } from '@airlock/core';
import { AirlockError } from '../../errors.js';
import type { TaskTable } from '../../store/schema.js';

/** The name of the kernel tool that asks a person a question. */
export const ASK_TOOL = 'ask';

/** What the model (or a person) reads when a question expired unanswered. */
export const QUESTION_EXPIRED_TEXT = 'Nobody answered this question before it expired.';

/** Longest prompt a question may carry, in characters. */
const PROMPT_MAX = 16_384;
/** Most options a question may offer. */
const OPTIONS_MAX = 64;

/** A question's payload: the prompt, the offered answers and whether several may be picked. */
export interface Question {
  prompt: string;
  options: string[] | null;
  multi: boolean;
}

/**
 * Reads an `ask` call's input: `{prompt, options?, multi?}`. Returns the
 * question (its prompt as the kernel keeps text, asKeptText), or what is
 * wrong with it (the model reads that as a failure).
 */
export function parseQuestion(input: unknown): Question | string {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return 'ask takes an object {prompt, options?, multi?}';
  }
  const { prompt, options, multi, ...rest } = input as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) return `ask does not take ${extra.join(', ')}`;
  if (typeof prompt !== 'string' || prompt.trim() === '') return 'ask needs a nonblank prompt';
  if (prompt.length > PROMPT_MAX) return `the prompt is longer than ${PROMPT_MAX} characters`;
  if (multi !== undefined && typeof multi !== 'boolean') return 'multi is true or false';
  if (options !== undefined && options !== null) {
    if (!Array.isArray(options) || options.some((o) => typeof o !== 'string' || o === '')) {
      return 'options is a list of nonempty strings';
    }
    if (options.length === 0 || options.length > OPTIONS_MAX) {
      return `options lists 1 to ${OPTIONS_MAX} answers`;
    }
    if (new Set(options).size !== options.length) return 'options must be distinct';
  }
  if (multi === true && (options === undefined || options === null)) {
    return 'multi needs options to pick from';
  }
  return {
    // Kept as the stores keep text: a NUL or lone surrogate as U+FFFD, alike on SQLite and PostgreSQL.
    prompt: asKeptText(prompt),
    options: (options as string[] | null | undefined) ?? null,
    multi: multi === true,
  };
}

/**
 * Checks an answer against a question's options. Without options any content
 * is accepted; with options and not multi the content is one option (a
 * string); with multi it is a nonempty array of distinct options.
 * @throws AirlockError invalid_resolution naming the offered options.
 */
export function checkAnswer(row: Pick<TaskTable, 'options' | 'multi'>, content: unknown): void {
  if (content === undefined) {
    throw new AirlockError('invalid_resolution', 'an answer needs content (the model reads it)');
  }
  const options = row.options ? (JSON.parse(row.options) as string[]) : null;
  if (!options) return;
  const offered = options.map((o) => JSON.stringify(o)).join(', ');
  if (row.multi) {
    const ok =
      Array.isArray(content) &&
      content.length > 0 &&
      content.every((c) => typeof c === 'string' && options.includes(c)) &&
      new Set(content).size === content.length;
    if (!ok) {
      throw new AirlockError(
        'invalid_resolution',
        `this question takes several answers: a nonempty array of distinct options among ${offered}`,
      );
    }
    return;
  }
  if (typeof content !== 'string' || !options.includes(content)) {
    throw new AirlockError('invalid_resolution', `the answer must be one of ${offered}`);
  }
}

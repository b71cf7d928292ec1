import type { HookedAgent } from '@airlock/core';
import { codexConfigProblem } from './codex-toml.js';
import { withoutJsonComments } from './json-comments.js';
import { hooksShapeProblem, isJsonObject } from './json-settings.js';

function readsWithoutComments(text: string): boolean {
  try {
    JSON.parse(withoutJsonComments(text));
    return true;
  } catch {
    return false;
  }
}

/**
 * Parses a JSON settings file, refusing to touch one it cannot read (an
 * absent or blank file is empty settings).
 * @throws Error naming the file when it is not a JSON object, or (Gemini CLI)
 * when it holds comments, which the agent reads and a rewrite would lose.
 */
export function parseSettings(
  path: string,
  text: string | null,
  agent?: HookedAgent,
): Record<string, unknown> {
  if (text === null || text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    if (agent === 'gemini' && readsWithoutComments(text)) {
      throw new Error(
        `${path} holds comments: Gemini CLI reads them, but Airlock would lose them in rewriting the file; remove them (or add Airlock's entries by hand) first`,
      );
    }
    throw new Error(`${path} is not valid JSON (${(error as Error).message}); fix it first`);
  }
  if (!isJsonObject(parsed)) throw new Error(`${path} is not a JSON object`);
  return parsed;
}

/**
 * Parses settings Airlock can merge its entries into.
 * @throws Error naming the file and the key whose shape Airlock cannot merge with.
 */
export function mergeableSettings(
  path: string,
  text: string | null,
  agent: HookedAgent,
): Record<string, unknown> {
  const settings = parseSettings(path, text, agent);
  const problem = hooksShapeProblem(settings);
  if (problem) {
    throw new Error(`${path}: ${problem}, so Airlock cannot add its hooks beside it; fix it first`);
  }
  return settings;
}

/**
 * A config.toml text Airlock can add its block to.
 * @throws Error naming the file and the line when it declares hooks of its own or its block is damaged.
 */
export function mergeableCodexConfig(path: string, text: string | null): string {
  const problem = codexConfigProblem(text ?? '');
  if (problem) throw new Error(`${path}: ${problem}`);
  return text ?? '';
}

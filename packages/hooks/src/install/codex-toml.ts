import { commandOf, HOOK_ENTRIES, type HookCommands } from './entries.js';

/** The lines that open and close the block Airlock owns in Codex's config.toml. */
export const BLOCK_BEGIN =
  '# >>> airlock hooks (written by `airlock hooks install`; removed by `airlock hooks uninstall`)';
export const BLOCK_END = '# <<< airlock hooks';

/** A TOML basic string. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

/** The TOML of Airlock's command hooks for Codex (`[[hooks.EVENT]]` with `[[hooks.EVENT.hooks]]`). */
export function codexBlock(commands: HookCommands): string {
  const lines = [BLOCK_BEGIN];
  for (const entry of HOOK_ENTRIES.codex) {
    lines.push(
      `[[hooks.${entry.event}]]`,
      `[[hooks.${entry.event}.hooks]]`,
      'type = "command"',
      `command = ${tomlString(commandOf(entry, commands))}`,
      `timeout = ${entry.timeoutSeconds}`,
      '',
    );
  }
  lines.push(BLOCK_END);
  return lines.join('\n');
}

/** Removes Airlock's block from a config.toml text; says whether there was one. */
export function withoutCodexBlock(text: string): { text: string; removed: boolean } {
  const begin = text.indexOf(BLOCK_BEGIN);
  if (begin < 0) return { text, removed: false };
  const end = text.indexOf(BLOCK_END, begin);
  const stop = end < 0 ? text.length : end + BLOCK_END.length;
  const before = text.slice(0, begin).replace(/\n+$/, '');
  const after = text.slice(stop).replace(/^\n+/, '');
  const joined = [before, after].filter((part) => part.length > 0).join('\n\n');
  return { text: joined.length > 0 ? `${joined}\n` : '', removed: true };
}

/**
 * Puts Airlock's block at the end of a config.toml text (after the tables
 * already there, as arrays of tables may be), replacing an earlier one.
 */
export function withCodexBlock(text: string, commands: HookCommands): string {
  const base = withoutCodexBlock(text).text.replace(/\n+$/, '');
  return `${base.length > 0 ? `${base}\n\n` : ''}${codexBlock(commands)}\n`;
}

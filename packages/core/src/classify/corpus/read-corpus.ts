import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ACTION_TAGS, type ActionTag } from '../tags.js';

/** One corpus entry: a command and the full set of tags it must classify as. */
export interface CorpusEntry {
  readonly line: number;
  readonly command: string;
  readonly tags: readonly ActionTag[];
  /** `@bash` after the tags: the command is read as bash runs it, not also as sh. */
  readonly shell?: 'bash';
}

/** Reads `commands.txt` (`[tag,tag] command` or `[tag,tag]@bash command`, `⏎` for a newline, `#` comments). */
export function readCorpus(): CorpusEntry[] {
  const path = fileURLToPath(new URL('./commands.txt', import.meta.url));
  const entries: CorpusEntry[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      if (text.trim() === '' || text.startsWith('#')) return;
      const match = /^\[([a-z_,]*)\](@bash)? (.+)$/.exec(text);
      if (!match) throw new Error(`commands.txt:${index + 1}: not "[tags] command"`);
      const tags = match[1]!.split(',').filter((tag) => tag !== '') as ActionTag[];
      for (const tag of tags) {
        if (!ACTION_TAGS.includes(tag)) throw new Error(`commands.txt:${index + 1}: tag ${tag}`);
      }
      const command = match[3]!.replaceAll('⏎', '\n');
      entries.push({ line: index + 1, command, tags, ...(match[2] ? { shell: 'bash' } : {}) });
    });
  return entries;
}

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ACTION_TAGS, type ActionTag } from '../tags.js';

/** One corpus entry: a command and the full set of tags it must classify as. */
export interface CorpusEntry {
  readonly line: number;
  readonly command: string;
  readonly tags: readonly ActionTag[];
}

/** Reads `commands.txt` (`[tag,tag] command`, `⏎` for a newline, `#` comments). */
export function readCorpus(): CorpusEntry[] {
  const path = fileURLToPath(new URL('./commands.txt', import.meta.url));
  const entries: CorpusEntry[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      if (text.trim() === '' || text.startsWith('#')) return;
      const match = /^\[([a-z_,]*)\] (.+)$/.exec(text);
      if (!match) throw new Error(`commands.txt:${index + 1}: not "[tags] command"`);
      const tags = match[1]!.split(',').filter((tag) => tag !== '') as ActionTag[];
      for (const tag of tags) {
        if (!ACTION_TAGS.includes(tag)) throw new Error(`commands.txt:${index + 1}: tag ${tag}`);
      }
      entries.push({ line: index + 1, command: match[2]!.replaceAll('⏎', '\n'), tags });
    });
  return entries;
}

import { describe, expect, it } from 'vitest';
import { classifyShellCommand } from './action-tags.js';
import { readCorpus } from './corpus/read-corpus.js';
import { orderedTags } from './tags.js';

const corpus = readCorpus();
const GUARDED = ['destructive', 'delete', 'network', 'install_local'] as const;

describe('classifier corpus', () => {
  it('holds at least 250 commands', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(250);
  });

  it.each(corpus.map((entry) => [entry.line, entry.command, entry] as const))(
    'line %i: %s',
    (_line, command, entry) => {
      const options = entry.shell ? { shell: entry.shell } : {};
      expect(classifyShellCommand(command, options)).toEqual(orderedTags(entry.tags));
    },
  );

  it('never drops a destructive, delete, network or install tag', () => {
    const lost = corpus.flatMap((entry) => {
      const got = classifyShellCommand(entry.command, entry.shell ? { shell: entry.shell } : {});
      return GUARDED.filter((tag) => entry.tags.includes(tag) && !got.includes(tag)).map(
        (tag) => `${entry.line}: ${entry.command} lost ${tag}`,
      );
    });
    expect(lost).toEqual([]);
  });

  it('never reads a command it marks unknown as read alone', () => {
    for (const entry of corpus.filter((item) => item.tags.includes('unknown'))) {
      expect(classifyShellCommand(entry.command)).not.toEqual(['read']);
    }
  });
});

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

/**
 * The pages these tests own, from the repository root (the core contract and the
 * generated lint catalog are checked by their own packages).
 */
export const DOC_PAGES = [
  'README.md',
  'docs/README.md',
  'docs/getting-started.md',
  'docs/concepts.md',
  'docs/rules.md',
  'docs/permissions.md',
  'docs/approval-policies.md',
  'docs/action-contracts.md',
  'docs/executors.md',
  'docs/mcp.md',
  'docs/operations.md',
  'docs/limits.md',
  'docs/backup-restore.md',
  'docs/retention.md',
  'docs/durability.md',
  'docs/observability.md',
  'docs/web-inbox.md',
  'docs/api-reference.md',
  'packages/sdk/README.md',
  'packages/server/README.md',
  'packages/inbox/README.md',
] as const;

/**
 * Pages whose links are checked but whose code blocks are not: the figures'
 * pages quote bench output and profiles as they were printed, and the guides
 * below have their samples checked by their own packages' tests, or none.
 */
export const LINKED_PAGES = [
  ...DOC_PAGES,
  'docs/agents.md',
  'docs/notifications.md',
  'docs/editors.md',
  'docs/task-states.md',
  'docs/frameworks/README.md',
  'docs/frameworks/ai-sdk.md',
  'docs/frameworks/openai-agents.md',
  'docs/frameworks/langgraph.md',
  'docs/performance.md',
  'docs/performance-kernel.md',
  'docs/performance-sql.md',
  'docs/performance-frameworks.md',
  'docs/performance-mcp.md',
  'docs/performance-targets.md',
  'docs/performance-history.md',
] as const;

/** One fenced code block of a docs page. */
export interface Sample {
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's language, such as `ts`. */
  lang: string;
  /** The words after the language, such as `run`. */
  flags: string[];
  code: string;
  /** The block right after this one when nothing but blank lines separate them. */
  next: Sample | null;
}

/** Every fenced block of a markdown text, in order. */
export function extractSamples(page: string, markdown: string): Sample[] {
  const samples: Sample[] = [];
  const lines = markdown.split('\n');
  let open: { line: number; lang: string; flags: string[]; body: string[] } | null = null;
  let lastEnd = -2;
  for (const [index, text] of lines.entries()) {
    const fence = /^```(\S*)\s*(.*)$/.exec(text);
    if (!open && fence) {
      const [, lang = '', rest = ''] = fence;
      open = { line: index + 1, lang, flags: rest.split(/\s+/).filter(Boolean), body: [] };
      continue;
    }
    if (open && text.startsWith('```')) {
      const sample: Sample = {
        page,
        line: open.line,
        lang: open.lang,
        flags: open.flags,
        code: `${open.body.join('\n')}\n`,
        next: null,
      };
      const previous = samples.at(-1);
      const between = lines.slice(lastEnd + 1, open.line - 1);
      if (previous && between.every((line) => line.trim() === '')) previous.next = sample;
      samples.push(sample);
      lastEnd = index;
      open = null;
      continue;
    }
    open?.body.push(text);
  }
  return samples;
}

/** Every fenced block of every docs page these tests own. */
export function docSamples(): Sample[] {
  return DOC_PAGES.flatMap((page) =>
    extractSamples(page, readFileSync(join(REPO_ROOT, page), 'utf8')),
  );
}

/** Where a sample is, for messages: `rules.md:42`. */
export function where(sample: Sample): string {
  return `${sample.page}:${sample.line}`;
}

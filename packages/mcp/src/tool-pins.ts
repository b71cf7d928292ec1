import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/** The parts of a tool's declaration a call is judged by: the manifest, the listing, the person. */
const DECLARED = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

/** JSON with every object's keys in order: one declaration listed twice reads the same. */
function canonical(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value)
    .filter(([, member]) => member !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonical(member)}`).join(',')}}`;
}

/**
 * The tools of one server as the bridge first listed them, against which
 * every later listing (after a restart of the server's process, or its
 * `notifications/tools/list_changed`) is compared: a call is judged (its
 * schema check, its risk traits, a person's approval) by the first listing,
 * so a tool the server now declares otherwise, or no more, is not called.
 */
export class ToolPins {
  private pinned: ReadonlyMap<string, Tool> | null = null;
  /** What differs now, by tool name. */
  private changed = new Map<string, string>();

  /** Takes a listing: the first one pins the tools, each later one is compared with it. */
  take(tools: readonly Tool[]): void {
    if (!this.pinned) {
      this.pinned = new Map(tools.map((tool) => [tool.name, tool]));
      return;
    }
    const now = new Map(tools.map((tool) => [tool.name, tool]));
    const changed = new Map<string, string>();
    for (const [name, first] of this.pinned) {
      const later = now.get(name);
      if (!later) {
        changed.set(name, 'it is no longer listed');
        continue;
      }
      const fields = DECLARED.filter(
        (field) => canonical(first[field]) !== canonical(later[field]),
      );
      if (fields.length > 0) changed.set(name, `its ${fields.join(', ')} changed`);
    }
    this.changed = changed;
  }

  /** How the tool's declaration differs from the pinned one, or null when it does not. */
  changeOf(name: string): string | null {
    return this.changed.get(name) ?? null;
  }
}

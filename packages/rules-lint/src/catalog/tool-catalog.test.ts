import { describe, expect, it } from 'vitest';
import { mergeCatalogs, parseToolCatalog, resolvedCatalog } from './tool-catalog.js';

describe('parseToolCatalog', () => {
  it('reads names, MCP, Anthropic-style and OpenAI-style entries', () => {
    const parsed = parseToolCatalog({
      tools: [
        'grep',
        { name: 'bash', input_schema: { type: 'object' } },
        { name: 'edit', inputSchema: { type: 'object', properties: {} } },
        { type: 'function', function: { name: 'web', parameters: { type: 'object' } } },
      ],
    });
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.catalog.names).toEqual(['bash', 'edit', 'grep', 'web']);
    expect([...parsed.catalog.schemas.keys()].sort()).toEqual(['bash', 'edit', 'web']);
  });

  it('refuses what is not a catalog', () => {
    expect(parseToolCatalog({}).ok).toBe(false);
    expect(parseToolCatalog([{ schema: {} }]).ok).toBe(false);
  });

  it('merges catalogs, keeping the first schema of a name', () => {
    const a = parseToolCatalog([{ name: 'bash', input_schema: { type: 'object' } }]);
    const b = parseToolCatalog(['bash', 'write']);
    if (!a.ok || !b.ok) throw new Error('bad');
    const merged = mergeCatalogs(a.catalog, undefined, b.catalog);
    expect(merged?.names).toEqual(['bash', 'write']);
    expect(merged?.schemas.get('bash')).toEqual({ type: 'object' });
    expect(mergeCatalogs(undefined)).toBeUndefined();
  });

  it('resolves names through tool_aliases, moving their schemas to the resolved name', () => {
    const parsed = parseToolCatalog([
      { name: 'read_file', input_schema: { type: 'object', title: 'read' } },
      'bash',
    ]);
    if (!parsed.ok) throw new Error(parsed.message);
    const resolved = resolvedCatalog(parsed.catalog, { read_file: 'read' });
    expect(resolved?.names).toEqual(['bash', 'read']);
    expect([...(resolved?.schemas.keys() ?? [])]).toEqual(['read']);
    expect(resolved?.schemas.get('read')).toEqual({ type: 'object', title: 'read' });
  });
});

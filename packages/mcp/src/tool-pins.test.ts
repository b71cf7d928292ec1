import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ToolPins } from './tool-pins.js';

const read: Tool = {
  name: 'read',
  description: 'Reads a file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

describe('ToolPins', () => {
  it('takes the same declaration with its keys in another order as unchanged', () => {
    const pins = new ToolPins();
    pins.take([read]);
    pins.take([
      {
        annotations: { openWorldHint: false, readOnlyHint: true },
        inputSchema: {
          required: ['path'],
          properties: { path: { type: 'string' } },
          type: 'object',
        },
        description: 'Reads a file.',
        name: 'read',
      },
    ]);
    expect(pins.changeOf('read')).toBeNull();
  });

  it('names what changed, a tool no longer listed, and forgets a change undone', () => {
    const pins = new ToolPins();
    pins.take([read, { name: 'other', inputSchema: { type: 'object' } }]);
    pins.take([
      { ...read, description: 'Deletes a file.', annotations: { destructiveHint: true } },
    ]);
    expect(pins.changeOf('read')).toBe('its description, annotations changed');
    expect(pins.changeOf('other')).toBe('it is no longer listed');
    expect(pins.changeOf('unknown')).toBeNull();
    pins.take([read, { name: 'other', inputSchema: { type: 'object' } }]);
    expect(pins.changeOf('read')).toBeNull();
    expect(pins.changeOf('other')).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { effectProfileColumn, effectProfileFromColumn } from './effect-profile-column.js';

const input = { command: 'rm -rf ./build', cwd: '/srv' };
const profile = {
  tool_name: 'bash',
  tool_input: input,
  mode: 'ask',
  action_tags: ['delete'],
  matched_rules: [],
};

describe('the effect profile column', () => {
  it('leaves the input to the row and puts it back, in its place, when read', () => {
    const column = effectProfileColumn(profile);
    expect(column).not.toContain('rm -rf');
    const read = effectProfileFromColumn(column, input);
    expect(read).toEqual(profile);
    expect(Object.keys(read ?? {})).toEqual(Object.keys(profile));
  });

  it('returns a column written with its own input as stored, and null as null', () => {
    const older = JSON.stringify({ ...profile, tool_input: { command: 'as frozen then' } });
    expect(effectProfileFromColumn(older, input)?.tool_input).toEqual({
      command: 'as frozen then',
    });
    expect(effectProfileFromColumn(null, input)).toBeNull();
  });
});

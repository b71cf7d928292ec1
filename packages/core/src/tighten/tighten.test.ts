import { describe, expect, it } from 'vitest';
import type { ApprovalMode } from '../schemas/approval.js';
import { MODE_STRICTNESS, tighten } from './tighten.js';

const modes: ApprovalMode[] = ['bypass', 'ask', 'rules'];

describe('tighten', () => {
  for (const profileMode of modes) {
    for (const requestMode of modes) {
      const widens = MODE_STRICTNESS[requestMode] < MODE_STRICTNESS[profileMode];
      it(`profile ${profileMode}, request ${requestMode}: ${widens ? 'refused' : 'allowed'}`, () => {
        const result = tighten({ approval_mode: profileMode }, { approval_mode: requestMode });
        expect(result.ok).toBe(!widens);
        if (result.ok) expect(result.value.approval_mode).toBe(requestMode);
        else
          expect(result.error).toMatchObject({
            code: 'tightening_widens',
            widened: ['approval_mode'],
          });
      });
    }
  }

  it('refuses a mode that is no mode, a name of the prototype of the scale included', () => {
    for (const mode of ['toString', 'constructor', 'valueOf', '__proto__', 'strict', '']) {
      const result = tighten({ approval_mode: 'rules' }, { approval_mode: mode as ApprovalMode });
      expect(result, mode).toMatchObject({
        ok: false,
        error: { code: 'tightening_widens', widened: ['approval_mode'] },
      });
    }
  });

  it('keeps the profile mode and tools when the request says nothing', () => {
    expect(tighten({ approval_mode: 'ask', tool_names: ['bash'] }, {})).toEqual({
      ok: true,
      value: { approval_mode: 'ask', tool_names: ['bash'] },
    });
  });

  it('narrows tool names to a subset', () => {
    const result = tighten(
      { approval_mode: 'ask', tool_names: ['bash', 'edit', 'read'] },
      { tool_names: ['read'] },
    );
    expect(result).toEqual({ ok: true, value: { approval_mode: 'ask', tool_names: ['read'] } });
  });

  it('refuses a tool the profile does not declare, naming it', () => {
    const result = tighten(
      { approval_mode: 'ask', tool_names: ['read'] },
      { tool_names: ['read', 'bash'] },
    );
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.widened).toEqual(['tool_names']);
      expect(result.error.detail).toContain('bash');
    }
  });

  it('names both widenings at once', () => {
    const result = tighten(
      { approval_mode: 'rules', tool_names: ['read'] },
      { approval_mode: 'bypass', tool_names: ['bash'] },
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.widened).toEqual(['approval_mode', 'tool_names']);
  });

  it('lets a request name tools when the profile declares no list', () => {
    expect(tighten({ approval_mode: 'ask' }, { tool_names: ['bash'] })).toEqual({
      ok: true,
      value: { approval_mode: 'ask', tool_names: ['bash'] },
    });
  });
});

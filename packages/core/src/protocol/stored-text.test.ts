import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LifecycleHookSchema, StopHookSchema } from '../schemas/hooks.js';
import { ScriptedCallSchema } from './provider.js';
import { keptText, personText, storableName } from './stored-text.js';

describe('storableName', () => {
  const name = storableName(z.string().min(1));
  it('takes any well-formed name, astral characters and RTL marks included', () => {
    for (const text of ['Bash', 'mcp__fs__read', '\u{1F600}', '\u202Ename']) {
      expect(name.parse(text)).toBe(text);
    }
  });
  it('refuses NUL and lone surrogates of either half, saying why', () => {
    for (const text of ['a\u0000', '\ud800', 'x\udc00', '\udc00\ud800']) {
      const result = name.safeParse(text);
      expect(result.success, JSON.stringify(text)).toBe(false);
      expect(result.error?.issues[0]?.message).toMatch(/NUL \(U\+0000\) or a lone surrogate/);
    }
  });
});

describe('keptText', () => {
  const text = keptText(z.string().max(3));
  it('replaces each lone surrogate and each NUL with one U+FFFD and keeps pairs as they are', () => {
    expect(text.parse('a\ud800')).toBe('a\ufffd');
    expect(text.parse('\udc00\ud800')).toBe('\ufffd\ufffd');
    expect(text.parse('\u{1F600}')).toBe('\u{1F600}');
    expect(text.parse('a\u0000\u0000')).toBe('a\ufffd\ufffd');
    expect(text.parse('abc')).toBe('abc');
  });
  it('still applies the checks of the schema it wraps', () => {
    expect(text.safeParse('abcd').success).toBe(false);
  });
});

describe('personText', () => {
  const text = personText(z.string().max(20));
  it('takes any well-formed text a person writes', () => {
    for (const sent of ['Deploy bot', 'не сейчас', '\u{1F680} ship', ''])
      expect(text.parse(sent)).toBe(sent);
  });
  it('refuses NUL, which PostgreSQL cannot keep in text, and lone surrogates, on every store', () => {
    for (const sent of ['no\u0000', '\ud800', 'a\udc00b']) {
      const result = text.safeParse(sent);
      expect(result.success, JSON.stringify(sent)).toBe(false);
      expect(result.error?.issues[0]?.message).toMatch(/NUL \(U\+0000\) or a lone surrogate/);
    }
  });
});

describe('the names a run declares are bounded as a call’s are', () => {
  it('a scripted call: a name up to 512 characters, an id up to 200, neither with NUL', () => {
    expect(
      ScriptedCallSchema.safeParse({ name: 'x'.repeat(512), id: 'i'.repeat(200) }).success,
    ).toBe(true);
    for (const call of [{ name: 'x'.repeat(513) }, { name: 'ok', id: 'i'.repeat(201) }]) {
      expect(
        ScriptedCallSchema.safeParse(call).success,
        JSON.stringify(call).length.toString(),
      ).toBe(false);
    }
  });
  it('a lifecycle hook and a stop hook: a tool name without NUL, up to 512 characters', () => {
    for (const tool of ['deploy\u0000', 'x'.repeat(513)]) {
      expect(LifecycleHookSchema.safeParse({ tool, timeout_ms: 1000 }).success).toBe(false);
      expect(
        StopHookSchema.safeParse({ tool, timeout_ms: 1000, max_continuations: 1 }).success,
      ).toBe(false);
    }
    expect(LifecycleHookSchema.safeParse({ tool: 'notify', timeout_ms: 1000 }).success).toBe(true);
  });
});

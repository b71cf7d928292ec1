import { describe, expect, it } from 'vitest';
import { OPERATION_CONTRACTS } from './operations/registry.js';

const label = {
  create: OPERATION_CONTRACTS['credentials.create'].input.shape.label,
  rename: OPERATION_CONTRACTS['credentials.label'].input.shape.label,
};

describe("a credential's label", () => {
  it.each([
    'Ana\nApproved by Bo',
    'Ana\tadmin',
    'Ana\rLima',
    'Ana\u001b[2JLima',
    'Ana\u0085Lima',
    'Ana\u007f',
  ])('is refused with a control character: %j', (text) => {
    for (const schema of [label.create, label.rename]) {
      const parsed = schema.safeParse(text);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toContain('one line of text');
    }
  });

  it('keeps any other text, marks that change how it reads included (shown as marks)', () => {
    for (const text of ['Ana Lima', 'Ana\u202eLima', 'Zoë 李', 'ops-bot (CI)']) {
      expect(label.create.safeParse(text).success).toBe(true);
      expect(label.rename.safeParse(text).success).toBe(true);
    }
  });
});

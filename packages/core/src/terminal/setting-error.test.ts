import { describe, expect, it } from 'vitest';
import { isSettingError, SettingError } from './setting-error.js';

describe('isSettingError', () => {
  it('knows a SettingError, also one of another copy of the package, and nothing else', () => {
    expect(isSettingError(new SettingError('invalid_timeout', '--timeout', 'no'))).toBe(true);
    const copy = Object.assign(new Error('no'), { name: 'SettingError', code: 'invalid_timeout' });
    expect(isSettingError(copy)).toBe(true);
    expect(isSettingError(new Error('no'))).toBe(false);
    expect(isSettingError({ name: 'SettingError', code: 'invalid_timeout' })).toBe(false);
  });
});

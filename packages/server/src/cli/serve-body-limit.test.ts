import { describe, expect, it } from 'vitest';
import { MAX_READABLE_BODY } from '../api/request-body.js';
import { readServeSettings, ServeUsageError } from './serve-options.js';

describe('serve --body-limit', () => {
  it('takes the largest body the kernel can read', () => {
    const settings = readServeSettings({ 'body-limit': String(MAX_READABLE_BODY) }, {});
    expect(settings.bodyLimit).toBe(MAX_READABLE_BODY);
  });

  it.each([
    [{ 'body-limit': String(MAX_READABLE_BODY + 1) }, {}, '--body-limit'],
    [{ 'body-limit': '1073741824' }, {}, '--body-limit'],
    [{}, { AIRLOCK_BODY_LIMIT: '1073741824' }, 'AIRLOCK_BODY_LIMIT'],
  ])(
    'refuses a limit past what the kernel can read (%j %j), naming the maximum',
    (values, env, source) => {
      const read = () => readServeSettings(values, env);
      expect(read).toThrow(ServeUsageError);
      expect(read).toThrow(
        `${source} wants a number of bytes from 1024 to ${MAX_READABLE_BODY} (the largest body the kernel can read)`,
      );
    },
  );
});

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseNotificationsConfig } from './config.js';

const page = readFileSync(
  resolve(dirname(fileURLToPath(import.meta.url)), '../../../../docs/notifications.md'),
  'utf8',
);
const samples = [...page.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('docs/notifications.md samples', () => {
  it('has configuration samples, and each is a valid configuration', () => {
    expect(samples.length).toBeGreaterThanOrEqual(3);
    const env = {
      AIRLOCK_WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 2).toString('base64')}`,
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 's',
      SMTP_PASSWORD: 'p',
      AIRLOCK_LINK_SECRET: Buffer.alloc(32, 5).toString('base64'),
    };
    for (const sample of samples) {
      expect(() => parseNotificationsConfig(JSON.parse(sample), env)).not.toThrow();
    }
  });
});

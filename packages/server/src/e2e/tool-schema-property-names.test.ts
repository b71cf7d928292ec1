import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const sqlite = (await backends()).filter((backend) => backend.name === 'sqlite');

/*
 * A manifest whose schema hid an unbounded uniqueItems, or a 6,000-value enum, under a property
 * called `default` or `title` was admitted: a call with a 30,000-item array then held the
 * kernel's only thread for about a minute. The declaration is refused now, naming the place.
 */
describe.each(sqlite)(
  'a tool schema hiding a costly check under a property name ($name)',
  (backend) => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    it('is refused by runs.create and by the profile, and nothing is created', async () => {
      d = await deploy(backend);
      const hidden = {
        type: 'object',
        properties: {
          default: { type: 'array', uniqueItems: true },
          title: {
            type: 'array',
            items: { enum: Array.from({ length: 6000 }, (_, i) => `v${i}`) },
          },
        },
      };
      const manifest = [{ name: 'lookup', input_schema: hidden, risk_traits: ['read'] }];
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: 'x',
        tool_manifest: manifest,
        provider: { kind: 'scripted', rounds: [{ final: 'done' }] },
      });
      expect(created.status).toBe(422);
      expect(created.body.error.code).toBe('invalid_configuration');
      expect(created.body.error.problems).toEqual([
        expect.objectContaining({
          code: 'tool_manifest_invalid',
          pointer: '/tool_manifest/0/input_schema/properties/default/uniqueItems',
        }),
      ]);
      const profile = await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'ask',
        tool_manifest: manifest,
      });
      expect(profile.status).toBe(422);
      expect(profile.body.error.code).toBe('invalid_configuration');
      expect((await d.member.get(`${d.ws}/runs`)).body.runs).toEqual([]);
    });
  },
);

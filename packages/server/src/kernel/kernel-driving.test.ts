import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

describe('the kernel driving runs', () => {
  let d: Deployment | undefined;
  afterEach(async () => {
    await d?.close();
    d = undefined;
  });

  it('takes no step and keeps none in flight once stopped', async () => {
    d = await deploy(sqlite!);
    const run = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'x',
      provider: { kind: 'scripted', rounds: [{ final: 'f' }] },
    });
    const kernel = d.airlock.kernel;
    await kernel.idle();
    await kernel.stop();
    for (let i = 0; i < 10; i += 1) await kernel.drive(run.body.id);
    await kernel.drive('run_unknown');
    // A step left in flight would make idle() wait on it for ever.
    expect(kernel.stepsInFlight).toBe(0);
    await kernel.idle();
  });
});

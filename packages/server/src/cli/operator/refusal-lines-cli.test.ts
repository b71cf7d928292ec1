import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { runOperatorCli, sqliteBackend } from '../../testing/operator-cli.js';

const sqlite = await sqliteBackend();

/** How the real CLI prints a refusal of a real kernel on loopback. */
describe('a refusal of the kernel on stderr', { timeout: 120_000 }, () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite);
  });
  afterAll(async () => {
    await d?.close();
  });

  it('says a lone problem once when the detail already says it', async () => {
    // An id past the 200 characters an id may hold: the kernel refuses it with one problem.
    const refused = await runOperatorCli(d, ['runs', 'show', 'r'.repeat(201)]);
    expect(refused.code).toBe(1);
    const lines = refused.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^airlock: invalid_input: \/run_id: .+ \(too_big\)$/);
  });
});

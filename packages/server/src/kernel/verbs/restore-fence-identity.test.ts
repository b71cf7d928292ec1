import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../store/store.js';
import { recordedIdentity, recordIdentity } from '../../store/store-identity.js';
import { type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { type Backend, backends } from '../../testing/stores.js';
import { fenceIfCopied } from './restore-fence.js';

/**
 * A kernel's start fences a PostgreSQL store that is a copy of the database it was
 * last served from. The identity it compares names the cluster only where the
 * kernel's role may call pg_control_system(). When only one of the recorded and
 * the live identity names it (the role's right changed, or a restore onto a new
 * server where that right differs), the kernel cannot tell the two apart: a fresh
 * cluster numbers its first database 16384 as every other does, so equal OIDs
 * prove nothing. It fences, the safe side: a call held for a person, never a call
 * run twice. Same identity: no fence.
 */

const postgres = (await backends()).find((backend) => backend.name === 'postgres');

/** The test database's URL, as the harness opened it. */
let databaseUrl = '';
const tracked: Backend | undefined = postgres && {
  ...postgres,
  async open(clock) {
    const opened = await postgres.open(clock);
    databaseUrl = opened.location.databaseUrl ?? '';
    return opened;
  },
};

/** Runs statements on the test database as its owner, on a session of their own. */
async function asOwner<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert on them.
type Loose = any;

describe.skipIf(!postgres || postgres.skip !== null)('fenceIfCopied on the same database', () => {
  let d: Deployment | undefined;
  afterEach(async () => {
    await d?.close();
    d = undefined;
  });

  /** A running run whose one tool row was granted and waits for an executor. */
  async function grantedCall(deployment: Deployment): Promise<() => Promise<Loose>> {
    const run = await deployment.member.post(`${deployment.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'go',
      provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'deploy' }] }] },
    });
    const runId = run.body.id as string;
    const row = async () =>
      (await deployment.member.get(`${deployment.ws}/runs/${runId}/tasks/t1`)).body;
    await waitFor(async () => (await row()).state === 'runnable');
    return row;
  }

  async function clusterAndOid(): Promise<{ cluster: string; oid: string }> {
    return asOwner(async (client) => {
      const { rows } = await client.query<{ cluster: string; oid: string }>(
        `select (select system_identifier::text from pg_control_system()) as cluster, oid::text as oid
         from pg_database where datname = current_database()`,
      );
      return rows[0]!;
    });
  }

  it('fences when the recorded identity lacks the cluster the role may now read', async () => {
    d = await deploy(tracked!);
    const row = await grantedCall(d);
    const store = d.airlock.store;
    const { cluster, oid } = await clusterAndOid();
    // What a start recorded while the role could not call pg_control_system().
    await recordIdentity(store, oid);

    expect(await fenceIfCopied(store)).toEqual([
      expect.objectContaining({ key: 't1', was: 'runnable' }),
    ]);
    expect(await row()).toMatchObject({ state: 'failed', error: { code: 'outcome_unknown' } });
    expect(await recordedIdentity(store)).toBe(`${cluster}:${oid}`);
    // Recorded now: the next start on the same database fences nothing.
    expect(await fenceIfCopied(store)).toBeNull();
  });

  it('fences when the role may no longer read the cluster, then records the OID alone', async () => {
    d = await deploy(tracked!);
    const row = await grantedCall(d);
    const { cluster, oid } = await clusterAndOid();
    expect(await fenceIfCopied(d.airlock.store)).toBeNull();
    expect(await recordedIdentity(d.airlock.store)).toBe(`${cluster}:${oid}`);

    const role = `airlock_fence_probe_${Date.now()}`;
    const url = new URL(databaseUrl);
    url.username = role;
    url.password = 'probe';
    await asOwner(async (client) => {
      await client.query(`create role "${role}" login password 'probe'`);
      await client.query(`grant all on all tables in schema public to "${role}"`);
      await client.query(`grant all on all sequences in schema public to "${role}"`);
      await client.query('revoke execute on function pg_control_system() from public');
    });
    let restricted: Store | undefined;
    try {
      restricted = await Store.open({ databaseUrl: url.toString() });
      expect(await fenceIfCopied(restricted)).toEqual([
        expect.objectContaining({ key: 't1', was: 'runnable' }),
      ]);
      expect(await row()).toMatchObject({ state: 'failed', error: { code: 'outcome_unknown' } });
      expect(await recordedIdentity(restricted)).toBe(oid);
      expect(await fenceIfCopied(restricted)).toBeNull();
    } finally {
      await restricted?.close();
      await asOwner(async (client) => {
        await client.query('grant execute on function pg_control_system() to public');
        await client.query(`drop owned by "${role}"`);
        await client.query(`drop role "${role}"`);
      });
    }
  });

  it('still fences a database of another OID, or of the same OID on another cluster', async () => {
    d = await deploy(tracked!);
    const row = await grantedCall(d);
    const store = d.airlock.store;
    const { cluster, oid } = await clusterAndOid();
    await recordIdentity(store, `1${cluster}:${oid}`);
    expect(await fenceIfCopied(store)).toEqual([
      expect.objectContaining({ key: 't1', was: 'runnable' }),
    ]);
    expect(await row()).toMatchObject({ state: 'failed', error: { code: 'outcome_unknown' } });
    expect(await recordedIdentity(store)).toBe(`${cluster}:${oid}`);
    await recordIdentity(store, `${Number(oid) + 1}`);
    expect(await fenceIfCopied(store)).toEqual([]);
  });
});

import { createClient, createExecutor, isValidationError, ValidationError } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { scriptedRun } from '../support/kernel.js';
import { rejectionOf, useMemberKernel } from '../support/member-kernel.js';

/** What a function throws (it must throw). */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('options and inputs the SDK cannot send, refused before anything is sent', () => {
  const file = useMemberKernel();

  it('createClient refuses a URL it cannot reach and a token a header cannot carry, each named', () => {
    const both = thrownBy(() => createClient({ url: 'not a url', token: 'abc\r\nx-admin: 1' }));
    expect(both).toBeInstanceOf(ValidationError);
    expect(isValidationError(both)).toBe(true);
    expect(both).toMatchObject({ code: 'invalid_input', status: null });
    expect((both as ValidationError).problems.map((problem) => problem.pointer)).toEqual([
      '/url',
      '/token',
    ]);
    for (const url of ['ftp://127.0.0.1:4820', '127.0.0.1:4820', '']) {
      const error = thrownBy(() => createClient({ url, token: 't' }));
      expect((error as ValidationError).problems).toEqual([
        expect.objectContaining({ code: 'invalid_input', pointer: '/url' }),
      ]);
    }
    for (const token of ['é-unicode-✓', 'tab\there\u0000']) {
      const error = thrownBy(() => createClient({ url: file.kernel.url, token }));
      expect((error as ValidationError).problems[0]?.pointer).toBe('/token');
    }
    for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const error = thrownBy(() => createClient({ url: file.kernel.url, token: 't', timeoutMs }));
      expect((error as ValidationError).problems[0]?.pointer).toBe('/timeoutMs');
    }
  });

  it('refuses a base URL with a query or a fragment, which the paths would be appended to', () => {
    // The paths went after the query or the fragment: a read got the kernel's page at `/` and
    // failed as `internal` (200), a feed reconnected for ever or threw ws's own SyntaxError.
    for (const suffix of ['?x=1', '/?', '#top', '/#']) {
      const url = `${file.kernel.url}${suffix}`;
      for (const make of [
        () => createClient({ url, token: 't' }),
        () => createExecutor({ url, token: 't', tools: {} }),
      ]) {
        const error = thrownBy(make);
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).problems).toEqual([
          expect.objectContaining({
            code: 'invalid_input',
            pointer: '/url',
            message: expect.stringContaining('no query or fragment'),
          }),
        ]);
      }
    }
  });

  it('refuses a base URL with a user or a password: a feed socket sent them instead of the token', () => {
    // ws turned them into a Basic authorization header, which the kernel read instead of the
    // token: the feed was refused at every try and reconnected for ever, with no error.
    const { host } = new URL(file.kernel.url);
    for (const userinfo of ['user:secret@', 'user@', ':secret@']) {
      const url = `http://${userinfo}${host}`;
      for (const make of [
        () => createClient({ url, token: 't' }),
        () => createExecutor({ url, token: 't', tools: {} }),
      ]) {
        const error = thrownBy(make);
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).problems).toEqual([
          expect.objectContaining({ pointer: '/url', message: expect.stringContaining('no user') }),
        ]);
        expect((error as ValidationError).message).not.toContain('secret');
      }
    }
  });

  it('createExecutor refuses them too, at construction', () => {
    const error = thrownBy(() =>
      createExecutor({
        url: 'http//oops',
        token: file.kernel.workspace.tokens.executor,
        tools: {},
      }),
    );
    expect(error).toMatchObject({ code: 'invalid_input' });
  });

  it('createExecutor refuses a tool name no claim may carry (NUL, a lone surrogate), naming each', () => {
    // The kernel refused every claim naming one: the executor served none of its tools, its
    // good ones included, and told onError at every look for work.
    const error = thrownBy(() =>
      createExecutor({
        url: file.kernel.url,
        token: file.kernel.workspace.tokens.executor,
        tools: { bash: () => 'ran', 'odd\u0000': () => 'x', 'half\ud800': () => 'x' },
      }),
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).problems).toEqual([
      expect.objectContaining({ code: 'invalid_input', pointer: '/tools/odd\u0000' }),
      expect.objectContaining({ code: 'invalid_input', pointer: '/tools/half\ud800' }),
    ]);
  });

  it('createExecutor refuses a lease the kernel never grants, a concurrency, poll or body limit it cannot use, all at once', () => {
    const url = file.kernel.url;
    const token = file.kernel.workspace.tokens.executor;
    // Each would start an executor that serves nothing: every claim refused (a lease under
    // a second), no claim at all (NaN), a poll without pause (0), or a handler that is none.
    const error = thrownBy(() =>
      createExecutor({
        url: 'http//oops',
        token,
        tools: { bash: 'echo' as never },
        leaseMs: 10,
        concurrency: Number.NaN,
        pollMs: 0,
        bodyLimit: -1,
      }),
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ code: 'invalid_input', status: null });
    expect((error as ValidationError).problems.map((problem) => problem.pointer)).toEqual([
      '/url',
      '/tools/bash',
      '/leaseMs',
      '/concurrency',
      '/pollMs',
      '/bodyLimit',
    ]);
    for (const options of [
      { leaseMs: 86_400_001 },
      { leaseMs: 1500.5 },
      { concurrency: 0 },
      { pollMs: 2 ** 31 },
      { tools: null as never },
    ]) {
      const refused = thrownBy(() => createExecutor({ url, token, tools: {}, ...options }));
      expect((refused as ValidationError).problems).toHaveLength(1);
    }
  });

  it('an input JSON cannot carry (a BigInt, a cycle) is a ValidationError, and nothing reaches the kernel', async () => {
    const client = createClient({
      url: file.kernel.url,
      token: file.kernel.workspace.tokens.member,
    });
    const ws = client.workspace(file.kernel.workspace.id);
    const created = await ws.runs.create(scriptedRun('bypass', [{ final: 'done' }]));
    const cyclic: Record<string, unknown> = { command: 'ls' };
    cyclic.self = cyclic;
    const write = await rejectionOf(
      ws.runs.run(created.id).appendTask({ tool_name: 'bash', tool_input: cyclic }),
    );
    expect(write).toBeInstanceOf(ValidationError);
    expect(write).toMatchObject({ code: 'invalid_input', status: null });
    const big = await rejectionOf(
      client.call('runs.create', {
        workspace_id: file.kernel.workspace.id,
        ...scriptedRun('bypass', [{ final: 'done' }]),
        input: 10n as never,
      }),
    );
    expect(big).toMatchObject({ code: 'invalid_input', status: null });
    const read = await rejectionOf(ws.audit({ after: 1n as never }));
    expect(read).toBeInstanceOf(ValidationError);
    expect((await ws.runs.list()).map((run) => run.id)).toEqual([created.id]);
  });
});

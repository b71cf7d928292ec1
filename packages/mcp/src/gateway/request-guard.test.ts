import { describe, expect, it } from 'vitest';
import { messageProblem } from './request-guard.js';

const request = (method: string, params: unknown) =>
  ({ jsonrpc: '2.0', id: 1, method, params }) as Parameters<typeof messageProblem>[0];

describe("a message's problem, in one line", () => {
  it('names the method, the path and the reason of each issue', () => {
    expect(messageProblem(request('tools/list', { cursor: 5 }))).toBe(
      'tools/list: params.cursor: expected string, received number',
    );
    const initialize = messageProblem(request('initialize', { protocolVersion: 5 }));
    expect(initialize).toMatch(
      /^initialize: params\.protocolVersion: expected string, received number; params\.capabilities: .+ \(and 1 more\)$/,
    );
  });

  it('lets well-formed messages and methods it does not know through', () => {
    expect(messageProblem(request('tools/list', {}))).toBeNull();
    expect(messageProblem(request('tools/list', { cursor: 'abc' }))).toBeNull();
    expect(messageProblem(request('ping', undefined))).toBeNull();
    expect(messageProblem(request('resources/list', { cursor: 5 }))).toBeNull();
  });
});

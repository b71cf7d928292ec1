import { describe, expect, it } from 'vitest';
import { checkCall } from './checked-call.js';

describe('checkCall: a tools/call checked once', () => {
  it('gives the call as the SDK schema makes it: no __proto__ key, no member it does not name', () => {
    const params = JSON.parse(
      '{"name":"t","arguments":{"a":1,"__proto__":{"b":2}},"extra":1,"_meta":{"k":1}}',
    );
    const checked = checkCall(params);
    expect(checked.problem).toBeUndefined();
    expect(JSON.stringify(checked.request)).toBe(
      '{"method":"tools/call","params":{"_meta":{"k":1},"name":"t","arguments":{"a":1}}}',
    );
  });

  it('takes the params it made as checked, and checks any other', () => {
    const first = checkCall({ name: 't', arguments: {} });
    const again = checkCall(first.request?.params);
    expect(again.request?.params).toBe(first.request?.params);
    expect(checkCall({ name: 't', task: 5 }).problem).toMatch(/^tools\/call: params\.task: /);
    expect(checkCall({ name: 5 }).problem).toBe('params.name must be the tool name, a string');
  });
});

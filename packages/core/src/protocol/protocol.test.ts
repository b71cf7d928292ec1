import { describe, expect, it } from 'vitest';
import { COMMON_ERROR_CODES, ERROR_CODES, ERROR_STATUS } from './error-codes.js';
import { EVENT_TYPES, EventViewSchema } from './events.js';
import { OPERATION_CONTRACTS } from './operations/registry.js';
import { pathParams } from './routes.js';

describe('the operation contracts', () => {
  it('are keyed by their own names, once each, with unique method and path', () => {
    const routes = new Set<string>();
    for (const [key, contract] of Object.entries(OPERATION_CONTRACTS)) {
      expect(contract.name).toBe(key);
      const route = `${contract.method} ${contract.path}`;
      expect(routes.has(route)).toBe(false);
      routes.add(route);
    }
  });

  it('name every path parameter as an input field', () => {
    for (const contract of Object.values(OPERATION_CONTRACTS)) {
      for (const param of pathParams(contract.path)) {
        expect({ name: contract.name, param, known: param in contract.input.shape }).toEqual({
          name: contract.name,
          param,
          known: true,
        });
      }
    }
  });

  it('declare only codes of the table, none of them common ones', () => {
    for (const contract of Object.values(OPERATION_CONTRACTS)) {
      for (const code of contract.errors) {
        expect(ERROR_CODES).toContain(code);
        expect(COMMON_ERROR_CODES as readonly string[]).not.toContain(code);
      }
    }
  });
});

describe('the error table', () => {
  it('gives every code a 4xx or 5xx status', () => {
    for (const code of ERROR_CODES) expect(ERROR_STATUS[code]).toBeGreaterThanOrEqual(400);
  });
});

describe('the event union', () => {
  it('has one schema per type', () => {
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
  });

  it('reads a known event and keeps fields a newer kernel adds; refuses an unknown type', () => {
    const base = { seq: 1, run_id: 'run_1', task_key: 't1', principal: null, created_at: 0 };
    const parked = EventViewSchema.parse({
      ...base,
      type: 'task.claimed',
      data: { state: 'claimed', lease_until: 5, attempt: 1, newer: true },
    });
    expect(parked.data).toMatchObject({ newer: true });
    expect(EventViewSchema.safeParse({ ...base, type: 'task.exploded', data: {} }).success).toBe(
      false,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { requestTargetUrl } from './request-target.js';

describe('a request target read as a URL', () => {
  it('resolves a path, with its query, against the base', () => {
    const url = requestTargetUrl('/api/v1/x?limit=2', 'http://localhost');
    expect(url?.pathname).toBe('/api/v1/x');
    expect(url?.searchParams.get('limit')).toBe('2');
    expect(requestTargetUrl(undefined, 'http://localhost')?.pathname).toBe('/');
  });

  it('is none for a target URL cannot read, or whose first segment is empty', () => {
    for (const target of ['//[', 'http://a:99999/', '//proxy/api/v1/x', '//']) {
      expect(requestTargetUrl(target, 'http://localhost'), target).toBeNull();
    }
  });
});

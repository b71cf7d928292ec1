import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPERATION_CONTRACTS } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { DOC_PAGES, REPO_ROOT } from './samples.js';

/** A route with its parameters' names left out: `PUT /api/v1/workspaces/{}/retention`. */
function routeKey(method: string, path: string): string {
  return `${method} ${path.replace(/\{[^}]+\}/g, '{}')}`;
}

/** The operations only an admin member may call, by route. */
function adminRoutes(): Map<string, string> {
  const routes = new Map<string, string>();
  for (const [name, contract] of Object.entries(OPERATION_CONTRACTS)) {
    const { method, path, role } = contract as { method: string; path: string; role?: string };
    if (role === 'admin') routes.set(routeKey(method, path), name);
  }
  return routes;
}

/** Whether a route is an admin operation's; `POST .../credentials` names the path's end only. */
function isAdminRoute(admin: Map<string, string>, route: string): boolean {
  const [method, path = ''] = route.split(' ');
  if (!path.startsWith('.../')) return admin.has(route);
  return [...admin.keys()].some(
    (key) => key.startsWith(`${method} `) && key.endsWith(path.slice(3)),
  );
}

/** Each route a paragraph names in a code span (`PUT /api/v1/...`), with the paragraph. */
function namedRoutes(markdown: string): { route: string; paragraph: string }[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  return text
    .split(/\n\s*\n|\n- /)
    .map((paragraph) => paragraph.replace(/\s+/g, ' '))
    .flatMap((paragraph) =>
      [...paragraph.matchAll(/`(GET|PUT|POST|PATCH|DELETE) ((?:\.\.\.)?\/[^`\s?]*)/g)].map(
        (match) => ({
          route: routeKey(match[1]!, match[2]!),
          paragraph,
        }),
      ),
    );
}

/*
 * A guide that sends a reader to an operation only an admin member may call
 * says so where it names the route, so an approver's token is not tried
 * and refused `admin_required`. (The API reference, generated, names each
 * operation's role on a line of its own.)
 */
describe('admin operations in the docs', () => {
  it('finds the admin routes (so a pass means something)', () => {
    expect(adminRoutes().get('PUT /api/v1/workspaces/{}/retention')).toBe('retention.put');
    expect(isAdminRoute(adminRoutes(), 'POST .../credentials/{}/label')).toBe(true);
    expect(isAdminRoute(adminRoutes(), 'POST .../tasks/{}/approve')).toBe(false);
  });

  it('say admin wherever a page names their route', () => {
    const admin = adminRoutes();
    const unsaid: string[] = [];
    for (const page of DOC_PAGES.filter((page) => page !== 'docs/api-reference.md')) {
      for (const { route, paragraph } of namedRoutes(readFileSync(join(REPO_ROOT, page), 'utf8'))) {
        if (isAdminRoute(admin, route) && !/\badmin\b/.test(paragraph))
          unsaid.push(`${page}: ${route}`);
      }
    }
    expect(unsaid).toEqual([]);
  });
});

/**
 * A request line's target as a URL resolved against `base`, or null when it is none: a target
 * `new URL` throws on (`//[`, `http://a:99999/`; Node's parser lets such a request line
 * through), and a path whose first segment is empty. `//host/api/...` resolved against a base
 * would name the host `host` and route as `/api/...`, so a proxy in front that refuses
 * `/api/...` by its path would pass on a request to the route it refused. No route of the kernel
 * or the gateway starts with an empty segment.
 */
export function requestTargetUrl(target: string | undefined, base: string): URL | null {
  const text = target ?? '/';
  if (text.startsWith('//')) return null;
  try {
    return new URL(text, base);
  } catch {
    return null;
  }
}

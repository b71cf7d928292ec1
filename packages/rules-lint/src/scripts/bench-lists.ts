/** Rule lists the benchmark times: a realistic mix and the adversarial shapes of issue 10. */

const TOOLS = Array.from({ length: 60 }, (_, index) => `tool_${index}`);
/** Match globs of the mixed list. */
export const MATCHES = [
  '*rm -rf*',
  'ls*',
  '*git push*',
  '*.env',
  'cat *',
  '*sudo*',
  '/tmp/*',
  '*--force*',
];

/** A deterministic pseudo-random source (the same list on every run). */
function randomSource(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

/** Mostly literal tools, some globs and alternatives, paths, all verdicts and origins. */
export function mixedRules(count: number, wildcardShare: number): object[] {
  const random = randomSource(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  return Array.from({ length: count }, (_, index) => {
    const roll = random();
    const tool =
      roll < wildcardShare
        ? `${pick(TOOLS).slice(0, 6)}*`
        : roll < wildcardShare + 0.1
          ? `${pick(TOOLS)}|${pick(TOOLS)}`
          : pick(TOOLS);
    const verdict = pick(['allow', 'allow', 'ask', 'deny'] as const);
    const rule: Record<string, string> = { tool, verdict };
    if (random() < 0.6) {
      rule.path = pick(['command', 'path', 'args']);
      rule.match = pick(MATCHES);
    }
    if (verdict === 'deny') rule.reason = `rule ${index} says no`;
    if (random() < 0.1) rule.origin = pick(['author', 'kernel']);
    return rule;
  });
}

const COMMANDS = ['git', 'npm', 'pnpm', 'docker', 'kubectl', 'curl', 'python', 'make', 'cargo'];
const WORDS = ['status', 'run', 'push', 'build', 'test', 'log', 'diff', 'exec', 'install', 'apply'];

/**
 * A shell-heavy policy as real teams write it (issue 10): most rules on
 * `bash`, command prefixes (`git status*`), 30% fragments with a leading
 * `*` (`*rm -rf /*`), a few other tools, every verdict.
 */
export function shellRules(count: number): object[] {
  const random = randomSource(7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  return Array.from({ length: count }, (_, index) => {
    const roll = random();
    if (roll < 0.08) return { tool: `${pick(TOOLS)}`, verdict: pick(['allow', 'ask'] as const) };
    if (roll < 0.12)
      return {
        tool: 'write|edit',
        path: 'path',
        match: `*${pick(WORDS)}${index}*`,
        verdict: 'deny',
        reason: 'files',
      };
    const words = `${pick(COMMANDS)} ${pick(WORDS)} ${pick(WORDS)}${index % 50}`;
    const fragment = random() < 0.3;
    const verdict = fragment
      ? pick(['deny', 'deny', 'ask'] as const)
      : pick(['allow', 'allow', 'ask', 'deny'] as const);
    const rule: Record<string, string> = {
      tool: 'bash',
      path: 'command',
      match: fragment ? `*${words}*` : `${words}*`,
      verdict,
    };
    if (verdict === 'deny') rule.reason = `no ${words}`;
    return rule;
  });
}

/** 500 distinct fragment denies, `*tokN*`: every pair shares the tool, none implies another. */
export function tokenDenies(count = 500): object[] {
  return Array.from({ length: count }, (_, index) => ({
    tool: 'bash',
    path: 'command',
    match: `*tok${index}*`,
    verdict: 'deny',
    reason: 'token',
  }));
}

/**
 * 64 overlapping denies (`*a*b*` for each ordered pair of 8 letters) and
 * 100 allows over the same letters with `?` and `*`, so sample texts of the
 * allows are often denied and unions must be decided.
 */
export function overlappingDeniesAndAllows(): object[] {
  const letters = 'abcdefgh';
  const random = randomSource(3);
  const rules: object[] = [];
  for (const first of letters)
    for (const second of letters)
      rules.push({
        tool: 'bash',
        path: 'command',
        match: `*${first}*${second}*`,
        verdict: 'deny',
        reason: 'pair',
      });
  for (let index = 0; index < 100; index++) {
    let match = '';
    const length = 2 + Math.floor(random() * 4);
    for (let position = 0; position < length; position++) {
      const roll = random();
      match += roll < 0.2 ? '*' : roll < 0.35 ? '?' : letters[Math.floor(random() * 8)]!;
    }
    rules.push({ tool: 'bash', path: 'command', match, verdict: 'allow' });
  }
  return rules;
}

/** 500 `"tool": "*"` fragment denies against 500 allows on literal tools. */
export function starDeniesAndAllows(): object[] {
  return Array.from({ length: 1000 }, (_, index) =>
    index % 2 === 0
      ? {
          tool: '*',
          path: 'command',
          match: `*${MATCHES[index % MATCHES.length]}`,
          verdict: 'deny',
          reason: 'x',
        }
      : {
          tool: `tool_${index % 60}`,
          path: 'command',
          match: `${MATCHES[index % MATCHES.length]}`,
          verdict: 'allow',
        },
  );
}

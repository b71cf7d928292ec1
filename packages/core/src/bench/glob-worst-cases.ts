import { compileGlob } from '../index.js';
import { bestOf } from './measure.js';

const MIB = 1 << 20;

/** The glob shapes that were slow before matching became linear, each over 1 MiB. */
export function globWorstCases(): { label: string; pattern: string; text: string }[] {
  const a = 'a'.repeat(MIB);
  const withLoneSurrogate = `${'a'.repeat(MIB - 1)}\uD800`;
  const half = 'a'.repeat(500);
  return [
    { label: '* + 500 a + b + 500 a + *', pattern: `*${half}b${half}*`, text: a },
    { label: '1,000-character literal fragment', pattern: `*${'a'.repeat(999)}b*`, text: a },
    { label: '* + 1,000 a + ?b*', pattern: `*${'a'.repeat(1000)}?b*`, text: a },
    {
      label: '* + 500 a + b + 500 a + *, lone surrogate',
      pattern: `*${half}b${half}*`,
      text: withLoneSurrogate,
    },
    {
      label: '*a*a*a*a*a*a*a*b*, lone surrogate',
      pattern: '*a*a*a*a*a*a*a*b*',
      text: withLoneSurrogate,
    },
    { label: '*a?a*a*a*a*a*a*b*', pattern: '*a?a*a*a*a*a*a*b*', text: a },
    { label: '*a*a*a*a*a*a*a*b?', pattern: '*a*a*a*a*a*a*a*b?', text: a },
    { label: '* + 30,000 a + ?b* (a 30 KB rule)', pattern: `*${'a'.repeat(30_000)}?b*`, text: a },
    {
      label: '* + (a?) x 127 + b*, the longest ? part',
      pattern: `*${'a?'.repeat(127)}b*`,
      text: a,
    },
    {
      label: '* + 3 runs of 10,000 a between ?s + b*',
      pattern: `*${['a', 'a', 'a'].map((unit) => unit.repeat(10_000)).join('?')}b*`,
      text: a,
    },
  ];
}

/** Prints the best of five matches of each worst case; returns the slowest, in ms. */
export function printGlobWorstCases(): number {
  let slowest = 0;
  console.log('\nGlob worst cases over 1 MiB (best CPU time of 5, glob compiled once):');
  const refused = compileGlob(`*${'a?'.repeat(2000)}b*`);
  console.log(
    `  (* + (a?) x 2,000 + b*, a 4 KB rule, is refused when it compiles: ${refused.ok ? 'NOT refused' : refused.problems[0]!.code})`,
  );
  for (const { label, pattern, text } of globWorstCases()) {
    const compiled = compileGlob(pattern);
    if (!compiled.ok) throw new Error(`worst-case glob does not compile: ${label}`);
    const glob = compiled.value;
    const { ms, result } = bestOf(5, () => glob.matches(text));
    slowest = Math.max(slowest, ms);
    console.log(`  ${label.padEnd(44)} ${ms.toFixed(2).padStart(8)} ms  (matched: ${result})`);
  }
  return slowest;
}

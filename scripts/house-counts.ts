/**
 * Prints the house counts of issue 26: how far the server is from "one owner
 * for SQL, one typed client for every caller".
 *
 *   node --import tsx scripts/house-counts.ts [--json]
 *
 * Each count says how it is measured; the definitions live in
 * `scripts/house/counts.ts`, so the guard tests and this script agree.
 */
import { parseArgs } from 'node:util';
import { measureHouse } from './house/counts.js';

const { values } = parseArgs({ options: { json: { type: 'boolean', default: false } } });
const counts = measureHouse();
if (values.json) {
  console.log(JSON.stringify(counts, null, 2));
} else {
  for (const count of counts) {
    console.log(`${count.label}: ${count.value}`);
    for (const line of count.detail) console.log(`    ${line}`);
  }
}

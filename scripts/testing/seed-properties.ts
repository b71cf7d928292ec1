/** Vitest setup file: fast-check draws from the seed property-seed.ts chooses, in every test file. */
import fc from 'fast-check';
import { propertySeed } from './property-seed.js';

const seed = propertySeed(process.env.PROPERTY_SEED);
if (seed !== undefined) fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });

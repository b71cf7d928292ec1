/**
 * The language server's analysis thread: lints one document text per
 * message, so a slow analysis never holds up the server's answers.
 */
import { parentPort } from 'node:worker_threads';
import { type AnalysisJob, analyseText } from './analyse-text.js';

parentPort?.on('message', (job: AnalysisJob) => {
  parentPort?.postMessage(analyseText(job));
});

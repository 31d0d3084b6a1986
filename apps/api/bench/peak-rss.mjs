/**
 * Preloaded into a process the sync bench measures (`node --import ./peak-rss.mjs …`): at exit,
 * writes the process's peak resident memory in KiB (`process.resourceUsage().maxRSS`) to the
 * file named by BENCH_PEAK_FILE.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_PEAK_FILE;
if (file) {
  process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
}

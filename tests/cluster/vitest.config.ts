import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Each file starts its own nodes; two files at once would only fight over two cores.
    fileParallelism: false,
  },
});

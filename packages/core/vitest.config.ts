import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Finds the test PostgreSQL once per run (test-support/postgres.ts).
    globalSetup: ['src/test-support/postgres-setup.ts'],
  },
});

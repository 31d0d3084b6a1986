import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The browser tests poll for what a page shows; vitest's default second is less than
    // chromium needs on a 2-core machine running every other suite beside it.
    expect: { poll: { timeout: 10_000 } },
  },
});

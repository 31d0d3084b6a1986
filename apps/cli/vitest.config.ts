import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'local',
          include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts'],
        },
      },
      {
        // The command suites again, every command going to a live `satchel serve` (testing.ts).
        extends: true,
        test: {
          name: 'remote',
          include: ['src/commands/**/*.test.ts'],
          exclude: ['src/commands/serve.test.ts', 'src/**/*.local.test.ts'],
          env: { SATCHEL_CLI_TARGET: 'remote' },
        },
      },
    ],
  },
});

import { defineConfig } from 'vitest/config';

/**
 * Two projects: `fast` runs in seconds and is what developers run often
 * (`npm run test:quick`); `slow` holds differential, kill/resume and browser
 * suites (files named `*.slow.test.ts`). `npm test` runs both, as CI does.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'fast',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['**/*.slow.test.ts', 'node_modules/**', 'dist/**'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'slow',
          include: ['src/**/*.slow.test.ts', 'test/**/*.slow.test.ts'],
          testTimeout: 600_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});

import { configDefaults, defineConfig } from 'vitest/config'

/**
 * Two projects: `unit` (in-process, `npm run test:unit`) and `e2e` (`test/e2e/`: everything that starts
 * workerd, Chromium, Deno, Bun, a child process or another SDK; `npm run test:e2e`). `npm test` runs both.
 */
export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/e2e/**'] },
      },
      {
        extends: true,
        // a browser, workerd or a child process answers in well under a second when the machine is idle, in
        // seconds under load: expect.poll's 1 s default made busy runs fail
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], expect: { poll: { timeout: 10_000 } } },
      },
    ],
  },
})

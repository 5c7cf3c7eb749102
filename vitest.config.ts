import { configDefaults, defineConfig } from 'vitest/config'

/** The e2e tests that rebuild web-demo/dist (`npm start`): run after the rest, never beside a `wrangler dev`. */
const REBUILDS = ['test/e2e/start-port.test.ts']

/**
 * Three projects: `unit` (in-process, `npm run test:unit`), `e2e` (`test/e2e/`: everything that starts
 * workerd, Chromium, Deno, Bun, a child process or another SDK; `npm run test:e2e`), and `e2e-rebuilds` (the
 * e2e tests that rebuild the demo's assets, run once the others are done). `npm test` runs all three.
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
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/e2e/**'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        // a browser, workerd or a child process answers in well under a second when the machine is idle, in
        // seconds under load: expect.poll's 1 s default made busy runs fail
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...REBUILDS],
          expect: { poll: { timeout: 10_000 } },
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        // after the others, alone: `npm start` rebuilds web-demo/dist, the assets folder every `wrangler dev` of
        // the e2e tests serves, and wrangler reloads on it (a request in flight then gets 503 "Your worker
        // restarted mid-request", a Durable Object task is interrupted)
        test: {
          name: 'e2e-rebuilds',
          include: REBUILDS,
          expect: { poll: { timeout: 10_000 } },
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
})

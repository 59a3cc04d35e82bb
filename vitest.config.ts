import { availableParallelism } from 'node:os'
import { configDefaults, defineConfig } from 'vitest/config'
import vue from '@vitejs/plugin-vue'

// Three projects (docs/testing.md): every test on SQLite (the end-to-end journeys apart, in e2e), and
// the services', ledger's and integration tests again on PostgreSQL (a server must answer: see
// test/support/ledger-engine.ts).
const shared = {
  testTimeout: 60_000,
  hookTimeout: 120_000,
  pool: 'forks' as const,
  setupFiles: ['test/support/engine-setup.ts'],
}

/** Test files that need a PostgreSQL server whatever the engine under test (each makes its own database). */
const POSTGRES_ONLY = [
  'electron/ledger/pg/binary-copy.test.ts',
  'electron/ledger/pg/open.test.ts',
  'electron/ledger/pg/pg-concurrency.test.ts',
  'electron/ledger/pg/pg-db.test.ts',
  'electron/ledger/pg/pg-reconnect.test.ts',
  'electron/ledger/pg/pg-scans.test.ts',
  'test/integration/cli-team-ledger.test.ts',
]

/**
 * Test files run side by side, one per core (vitest's default leaves one core idle): most of a
 * file's time is spent in the PostgreSQL server or a CLI process rather than in its own thread, so
 * two files on two cores keep both busy (docs/testing.md, "How long the tests take"). The
 * end-to-end files come after the others, one at a time: Chromium keeps both cores busy already,
 * and a journey starved of processor time by a second one failed on timing.
 */
const WORKERS = Math.max(2, availableParallelism())
const E2E = 'test/e2e/**/*.test.ts'

export default defineConfig({
  plugins: [vue()],
  test: {
    projects: [
      {
        extends: true,
        test: {
          ...shared,
          name: 'sqlite',
          include: [
            'game-core/**/*.test.ts',
            'electron/**/*.test.ts',
            'renderer/src/**/*.test.ts',
            'test/**/*.test.ts',
          ],
          // about PostgreSQL itself, whatever the engine: run once, by the postgres project (so
          // `npm run test:sqlite` needs no server); the journeys in Chromium: project e2e
          exclude: [...configDefaults.exclude, ...POSTGRES_ONLY, E2E],
          env: { CARATS_TEST_ENGINE: 'sqlite' },
          maxWorkers: WORKERS,
        },
      },
      {
        extends: true,
        test: {
          ...shared,
          name: 'e2e',
          include: [E2E],
          env: { CARATS_TEST_ENGINE: 'sqlite' },
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          ...shared,
          name: 'postgres',
          include: ['electron/services/**/*.test.ts', 'electron/ledger/**/*.test.ts', 'test/integration/**/*.test.ts'],
          exclude: [
            ...configDefaults.exclude,
            // about the SQLite file itself: its locks and WAL beside a running host (the sqlite3
            // shell), file backups, restores, truncated and rolled-back files, keys beside it
            'test/integration/ledger-lock.test.ts',
            'test/integration/cli-integrity.test.ts',
            // the launcher's native SQLite binding, and `npm start` on a file: no ledger engine to choose
            'test/integration/cli-launcher.test.ts',
            'test/integration/start.test.ts',
            // no ledger at all: the build's output, the imports' layering, `carats rules | block`
            'test/integration/build-output.test.ts',
            'test/integration/cli-block.test.ts',
            'test/integration/layering.test.ts',
          ],
          env: { CARATS_TEST_ENGINE: 'postgres' },
          globalSetup: ['test/support/engine-global-setup.ts'],
          maxWorkers: WORKERS,
        },
      },
    ],
  },
})

import { defineConfig } from 'vitest/config'
import vue from '@vitejs/plugin-vue'

// Two projects (docs/testing-engines.md): every test on SQLite, and the services', ledger's and
// integration tests again on PostgreSQL (a server must answer: see test/support/ledger-engine.ts).
const shared = {
  testTimeout: 60_000,
  hookTimeout: 120_000,
  pool: 'forks' as const,
  setupFiles: ['test/support/engine-setup.ts'],
}

export default defineConfig({
  plugins: [vue()],
  test: {
    projects: [
      {
        extends: true,
        test: {
          ...shared,
          name: 'sqlite',
          include: ['game-core/**/*.test.ts', 'electron/**/*.test.ts', 'renderer/src/**/*.test.ts', 'test/**/*.test.ts'],
          env: { CARATS_TEST_ENGINE: 'sqlite' },
        },
      },
      {
        extends: true,
        test: {
          ...shared,
          name: 'postgres',
          include: ['electron/services/**/*.test.ts', 'electron/ledger/**/*.test.ts', 'test/integration/**/*.test.ts'],
          env: { CARATS_TEST_ENGINE: 'postgres' },
          globalSetup: ['test/support/engine-global-setup.ts'],
        },
      },
    ],
  },
})

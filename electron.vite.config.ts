import { readdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { build as esbuild } from 'esbuild'
import { defineConfig } from 'electron-vite'
import type { Plugin } from 'vite'
import vue from '@vitejs/plugin-vue'

/** Every worker thread's entry (electron/workers/<name>-worker.ts), emitted as out/main/<name>-worker.js. */
const workerInputs = Object.fromEntries(
  readdirSync(resolve(__dirname, 'electron/workers'))
    .filter((f) => /-worker\.ts$/.test(f) && !f.endsWith('.test.ts'))
    .map((f) => [f.slice(0, -'.ts'.length), resolve(__dirname, 'electron/workers', f)]),
)

/**
 * The two commands that run in plain Node, each bundled to one CommonJS file so that it starts
 * without compiling TypeScript: the browser host (electron/host/serve.ts) as out/main/host.js,
 * which electron/host/serve.mjs runs, and the command line (electron/cli/main.ts) as
 * out/main/cli.js, which electron/cli/carats.mjs runs. They sit beside the worker entries they
 * start (found from their own folder) and are self-contained: as further inputs of the main
 * build, the backend would move into a shared chunk under out/main/chunks/, where the workers are
 * not. Only the native database driver, and esbuild (which only the workers' run-from-source path
 * loads), stay in node_modules; the ledger picks the driver's binary as before
 * (CARATS_SQLITE_BINDING, else better-sqlite3's own build for Node).
 */
const NODE_BUNDLES = { 'out/main/host.js': 'electron/host/serve.ts', 'out/main/cli.js': 'electron/cli/main.ts' }

function nodeBundles(): Plugin {
  return {
    name: 'carats-node-bundles',
    apply: 'build',
    async closeBundle() {
      await Promise.all(
        Object.entries(NODE_BUNDLES).map(([outfile, entry]) =>
          esbuild({
            entryPoints: [resolve(__dirname, entry)],
            outfile: resolve(__dirname, outfile),
            bundle: true,
            platform: 'node',
            format: 'cjs',
            target: 'node20',
            external: ['better-sqlite3', 'esbuild', 'electron'],
            logLevel: 'warning',
          }),
        ),
      )
    },
  }
}

// Main and preload are emitted as CommonJS (the package has no "type": "module"):
// a sandboxed window can only load a CommonJS preload.
export default defineConfig({
  main: {
    plugins: [nodeBundles()],
    build: {
      outDir: 'out/main',
      rollupOptions: {
        // only loaded when the workers run from TypeScript (CLI, tests), never in the built app
        external: ['esbuild'],
        input: {
          index: resolve(__dirname, 'electron/main/index.ts'),
          ...workerInputs,
        },
      },
    },
  },
  preload: {
    build: {
      // A sandboxed preload can require only 'electron' (and a few Node built-ins): the contract's
      // dependencies (zod) must be bundled into it, not left as require() calls.
      externalizeDeps: false,
      outDir: 'out/preload',
      rollupOptions: { input: { index: resolve(__dirname, 'electron/preload/index.ts') } },
    },
  },
  renderer: {
    root: resolve(__dirname, 'renderer'),
    plugins: [vue()],
    // vue-i18n's build flags: the app uses the Composition API only (legacy: false) and none of its
    // components or directive, so their code can go (less to parse on the first screen).
    define: {
      __VUE_I18N_LEGACY_API__: 'false',
      __VUE_I18N_FULL_INSTALL__: 'false',
      __INTLIFY_PROD_DEVTOOLS__: 'false',
    },
    build: {
      // electron-vite leaves the renderer unminified by default; the first screen loads faster minified.
      minify: true,
      outDir: resolve(__dirname, 'out/renderer'),
      rollupOptions: { input: resolve(__dirname, 'renderer/index.html') },
    },
  },
})

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
 * The browser host (electron/host/serve.ts) as one CommonJS file, out/main/host.js, so that it
 * starts without compiling TypeScript (electron/host/serve.mjs runs it). It sits beside the worker
 * entries it starts (found from its own folder) and is self-contained: as a third input of the
 * main build, the backend would move into a shared chunk under out/main/chunks/, where the
 * workers are not. Only the native database driver, and esbuild (which only the workers' run-from-
 * source path loads), stay in node_modules; the ledger picks the driver's binary as before
 * (CARATS_SQLITE_BINDING, else better-sqlite3's own build for Node).
 */
function hostBundle(): Plugin {
  return {
    name: 'carats-host-bundle',
    apply: 'build',
    async closeBundle() {
      await esbuild({
        entryPoints: [resolve(__dirname, 'electron/host/serve.ts')],
        outfile: resolve(__dirname, 'out/main/host.js'),
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        external: ['better-sqlite3', 'esbuild', 'electron'],
        logLevel: 'warning',
      })
    },
  }
}

// Main and preload are emitted as CommonJS (the package has no "type": "module"):
// a sandboxed window can only load a CommonJS preload.
export default defineConfig({
  main: {
    plugins: [hostBundle()],
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
    define: { __VUE_I18N_LEGACY_API__: 'false', __VUE_I18N_FULL_INSTALL__: 'false', __INTLIFY_PROD_DEVTOOLS__: 'false' },
    build: {
      // electron-vite leaves the renderer unminified by default; the first screen loads faster minified.
      minify: true,
      outDir: resolve(__dirname, 'out/renderer'),
      rollupOptions: { input: resolve(__dirname, 'renderer/index.html') },
    },
  },
})

import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import vue from '@vitejs/plugin-vue'

// Main and preload are emitted as CommonJS (the package has no "type": "module"):
// a sandboxed window can only load a CommonJS preload.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        // only loaded when the workers run from TypeScript (CLI, tests), never in the built app
        external: ['esbuild'],
        input: {
          index: resolve(__dirname, 'electron/main/index.ts'),
          'block-worker': resolve(__dirname, 'electron/workers/block-worker.ts'),
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
    build: {
      // electron-vite leaves the renderer unminified by default; the first screen loads faster minified.
      minify: true,
      outDir: resolve(__dirname, 'out/renderer'),
      rollupOptions: { input: resolve(__dirname, 'renderer/index.html') },
    },
  },
})

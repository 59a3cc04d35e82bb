#!/usr/bin/env node
/**
 * `npm run serve -- [--db <file>] [--port N]`: starts the browser host. `npm start` (when Electron
 * cannot run), the end-to-end tests and the benchmark start it the same way.
 *
 * Builds out/ first if it is missing or older than its sources (one build even when several
 * processes start at once; its output goes to stderr), then runs the host bundled to JavaScript,
 * out/main/host.js (from serve.ts), in this process. Plain JavaScript: nothing is compiled at start.
 */
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { ensureBuilt, PROJECT_ROOT } from './build.mjs'

try {
  await ensureBuilt({ log: (m) => console.error(m) })
} catch (e) {
  console.error(e instanceof Error ? e.message : String(e))
  process.exit(1)
}
// CommonJS, like the Electron main process it is built with; it reads process.argv itself.
createRequire(import.meta.url)(join(PROJECT_ROOT, 'out', 'main', 'host.js'))

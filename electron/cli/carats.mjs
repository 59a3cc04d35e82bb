#!/usr/bin/env node
/**
 * `carats …` (package.json "bin"; `npm run --silent carats -- …`): the command line.
 *
 * Builds out/ first if it is missing or older than its sources (the same build and the same rule
 * as the browser host's launcher serve.mjs; its progress goes to stderr), then runs the command
 * line bundled to JavaScript, out/main/cli.js (from main.ts), in this process: nothing is compiled
 * at start. Its workers start from their built files beside it (out/main/<name>-worker.js).
 * Plain JavaScript, so that it runs before anything is built.
 */
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { ensureBuilt, PROJECT_ROOT } from '../host/build.mjs'

/** Why the command line cannot start, in one line. */
function cannotStart(e) {
  if (e && typeof e === 'object' && typeof e.reason === 'string') {
    return e.message.includes('\n')
      ? `the build of out/ failed: ${e.reason} (npm run build shows all of its output)`
      : e.reason
  }
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]
}

// The command line is plain Node: it opens ledgers with better-sqlite3's own (Node) build. The
// Electron main process points this at the Electron build, which Node cannot load.
delete process.env.CARATS_SQLITE_BINDING

// `carats … | head`: a reader that stops reading is no error of ours.
process.stdout.on('error', (e) => {
  if (e.code !== 'EPIPE') throw e
  process.exit(process.exitCode ?? 0)
})

try {
  await ensureBuilt({ log: (m) => console.error(m) })
} catch (e) {
  console.error(`carats: cannot start: ${cannotStart(e)}`)
  process.exit(1)
}
// CommonJS, like the main process it is built with.
const { runCli } = createRequire(import.meta.url)(join(PROJECT_ROOT, 'out', 'main', 'cli.js'))
process.exitCode = await runCli(process.argv.slice(2))

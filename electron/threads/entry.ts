import { existsSync } from 'node:fs'
import { join } from 'node:path'

/** The workers' entry files, from this file's folder in the sources (electron/threads). */
const WORKERS_SOURCE = join(__dirname, '..', 'workers')
const bundles = new Map<string, string>()
/** Entries resolved by the thread that started this one (see provideWorkerEntries). */
const provided = new Map<string, { file: string; eval: boolean }>()

/**
 * For a worker that starts workers of its own: the entries as its parent resolved them. A worker
 * run from memory (eval) cannot find its siblings' files from its own folder, which is the
 * current directory.
 */
export function provideWorkerEntries(entries: Record<string, { file: string; eval: boolean }>): void {
  for (const [name, entry] of Object.entries(entries)) provided.set(name, entry)
}

/**
 * How to start the worker `name` (an entry file of electron/workers): the bundled worker next to the
 * built main process in the app (out/main/<name>.js, an input of electron.vite.config.ts);
 * otherwise (CLI, tests, bench run from TypeScript) its source bundled once per process with
 * esbuild and run from memory, since registering a TypeScript loader in each worker costs about
 * a second.
 */
export function workerEntry(name: string): { file: string; eval: boolean } {
  const given = provided.get(name)
  if (given) return given
  // built: every bundle is in out/main, this code's folder there
  const built = join(__dirname, `${name}.js`)
  if (existsSync(built)) return { file: built, eval: false }
  let source = bundles.get(name)
  if (source === undefined) {
    // esbuild is a development dependency: only this path, never the built app, loads it.
    const esbuild = require('esbuild') as typeof import('esbuild')
    const out = esbuild.buildSync({
      entryPoints: [join(WORKERS_SOURCE, `${name}.ts`)],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      write: false,
      external: ['better-sqlite3', 'electron', 'esbuild', 'pg', 'pg-copy-streams', 'pg-native'],
    })
    source = out.outputFiles[0].text
    bundles.set(name, source)
  }
  return { file: source, eval: true }
}

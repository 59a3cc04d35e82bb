import { existsSync } from 'node:fs'
import { join } from 'node:path'

const bundles = new Map<string, string>()

/**
 * How to start the worker `name` (a file of electron/workers): the bundled worker next to the
 * built main process in the app (out/main/<name>.js, an input of electron.vite.config.ts);
 * otherwise (CLI, tests, bench run from TypeScript) its source bundled once per process with
 * esbuild and run from memory, since registering a TypeScript loader in each worker costs about
 * a second.
 */
export function workerEntry(name: string): { file: string; eval: boolean } {
  const built = join(__dirname, `${name}.js`)
  if (existsSync(built)) return { file: built, eval: false }
  let source = bundles.get(name)
  if (source === undefined) {
    // esbuild is a development dependency: only this path, never the built app, loads it.
    const esbuild = require('esbuild') as typeof import('esbuild')
    const out = esbuild.buildSync({ entryPoints: [join(__dirname, `${name}.ts`)], bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, external: ['better-sqlite3', 'electron', 'esbuild'] })
    source = out.outputFiles[0].text
    bundles.set(name, source)
  }
  return { file: source, eval: true }
}

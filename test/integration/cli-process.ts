/**
 * The command line as its users start it, for the tests that run it as a child process: the
 * launcher electron/cli/carats.mjs (what `carats` and `npm run carats -- …` run), which starts the
 * build of electron/cli/main.ts, out/main/cli.js.
 *
 * Under test it runs with esbuild made unloadable: esbuild is what the workers' run-from-source
 * path (electron/threads/entry.ts) bundles them with, so a command whose workers did not start
 * from their built files (out/main/<name>-worker.js) fails instead of quietly passing.
 */
import { join } from 'node:path'

export const ROOT = join(__dirname, '..', '..')
export const LAUNCHER = join(ROOT, 'electron', 'cli', 'carats.mjs')

const NO_ESBUILD_HOOK = `
import Module from 'node:module'
const load = Module._load
Module._load = function (request, ...rest) {
  if (request === 'esbuild') throw new Error('esbuild was loaded: a worker was bundled from source instead of started from out/main')
  return load.call(this, request, ...rest)
}
`

/** Node's options that make any require('esbuild') in the process throw. */
export const NO_ESBUILD = ['--import', `data:text/javascript,${encodeURIComponent(NO_ESBUILD_HOOK)}`]

/** The arguments of `node` that run `carats <args>` the way a user does, esbuild forbidden. */
export const caratsArgv = (args: readonly string[]): string[] => [...NO_ESBUILD, LAUNCHER, ...args]

/** The environment of a child `carats`: no ledger chosen by the caller's CARATS_DB. */
export const caratsEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  CARATS_DB: '',
  ...extra,
})

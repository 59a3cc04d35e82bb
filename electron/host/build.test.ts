import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { buildStatus, failureReason, OUTPUTS } from './build'

const roots: string[] = []

function project(): string {
  const root = mkdtempSync(join(tmpdir(), 'carats-build-'))
  roots.push(root)
  return root
}

function write(root: string, rel: string, ageSeconds: number): void {
  const p = join(root, rel)
  mkdirSync(dirname(p), { recursive: true })
  writeFileSync(p, 'x')
  const t = Date.now() / 1000 - ageSeconds
  utimesSync(p, t, t)
}

afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true })
})

describe('build freshness', () => {
  it('is stale when an output is missing, the browser host and command line bundles included', () => {
    const root = project()
    write(root, 'renderer/src/main.ts', 100)
    write(root, 'out/main/index.js', 10)
    write(root, 'out/main/host.js', 10)
    write(root, 'out/main/cli.js', 10)
    write(root, 'out/preload/index.js', 10)
    expect(buildStatus(root)).toEqual({ fresh: false, why: 'out/renderer/index.html is missing' })
    write(root, 'out/renderer/index.html', 10)
    expect(buildStatus(root)).toEqual({ fresh: true })
    rmSync(join(root, 'out/main/host.js'))
    expect(buildStatus(root)).toEqual({ fresh: false, why: 'out/main/host.js is missing' })
    write(root, 'out/main/host.js', 10)
    rmSync(join(root, 'out/main/cli.js'))
    expect(buildStatus(root)).toEqual({ fresh: false, why: 'out/main/cli.js is missing' })
  })

  it('is fresh when every output is newer than every source, and stale after a source changes', () => {
    const root = project()
    write(root, 'renderer/src/views/a.vue', 100)
    write(root, 'electron/contract/index.ts', 100)
    for (const o of OUTPUTS) write(root, o, 10)
    expect(buildStatus(root)).toEqual({ fresh: true })
    write(root, 'electron/contract/index.ts', 1)
    expect(buildStatus(root)).toMatchObject({ fresh: false })
  })

  it('ignores tests and node_modules', () => {
    const root = project()
    write(root, 'renderer/src/a.ts', 100)
    for (const o of OUTPUTS) write(root, o, 10)
    write(root, 'renderer/src/a.test.ts', 1)
    write(root, 'electron/node_modules/x/index.js', 1)
    expect(buildStatus(root)).toEqual({ fresh: true })
  })
})

describe('a failed build in one line', () => {
  it("names Vite's error and the file and line it points at, without colours or stack", () => {
    // what `electron-vite build` printed for `const x: number = ;` (shortened)
    const output = [
      'vite v8.3.8 building ssr environment for production...',
      '\u2717 Build failed in 1.42s',
      'error during build:',
      'Build failed with 1 error:',
      '',
      '\x1b[31m[builtin:vite-transform] \x1b[0mUnexpected token',
      '   \x1b[38;5;246m\u256d\x1b[0m\x1b[38;5;246m\u2500[\x1b[0m electron/workers/zz-broken-worker.ts:1:19 \x1b[38;5;246m]\x1b[0m',
      '    at aggregateBindingErrorsIntoJsError (file:///x/node_modules/rolldown/dist/shared/error.mjs:50:18)',
    ].join('\n')
    expect(failureReason(output)).toBe(
      '[builtin:vite-transform] Unexpected token (electron/workers/zz-broken-worker.ts:1:19)',
    )
  })

  it('falls back to the first line that is not a stack frame', () => {
    expect(failureReason('\nError: Cannot find module vite\n    at Module._load (node:internal)\n')).toBe(
      'Error: Cannot find module vite',
    )
  })
})

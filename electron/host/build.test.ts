import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { buildStatus, OUTPUTS } from './build'

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
  it('is stale when an output is missing, the browser host bundle included', () => {
    const root = project()
    write(root, 'renderer/src/main.ts', 100)
    write(root, 'out/main/index.js', 10)
    write(root, 'out/main/host.js', 10)
    write(root, 'out/preload/index.js', 10)
    expect(buildStatus(root)).toEqual({ fresh: false, why: 'out/renderer/index.html is missing' })
    write(root, 'out/renderer/index.html', 10)
    expect(buildStatus(root)).toEqual({ fresh: true })
    rmSync(join(root, 'out/main/host.js'))
    expect(buildStatus(root)).toEqual({ fresh: false, why: 'out/main/host.js is missing' })
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

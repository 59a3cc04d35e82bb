import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { checkElectronBinding, electronBindingPaths, type BindingStamp } from './native'

const runtime: BindingStamp = {
  electron: '45.5.0',
  abi: '150',
  betterSqlite3: '12.11.1',
  platform: 'linux',
  arch: 'x64',
}
const dirs: string[] = []

function appRoot(stamp?: object | string, withBinding = true): string {
  const root = mkdtempSync(join(tmpdir(), 'carats-native-'))
  dirs.push(root)
  const p = electronBindingPaths(root)
  mkdirSync(join(root, 'build', 'native', 'electron'), { recursive: true })
  if (withBinding) writeFileSync(p.binding, 'binary')
  if (stamp !== undefined) writeFileSync(p.stamp, typeof stamp === 'string' ? stamp : JSON.stringify(stamp))
  return root
}

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('Electron binding check', () => {
  it('accepts a binding stamped for this runtime', () => {
    const root = appRoot(runtime)
    expect(checkElectronBinding(root, runtime)).toEqual({ ok: true, path: electronBindingPaths(root).binding })
  })

  it('reports a missing binding or stamp with the fix', () => {
    for (const root of [appRoot(runtime, false), appRoot(undefined, true)]) {
      const r = checkElectronBinding(root, runtime)
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.why).toMatch(/missing.*electron-native\.mjs/)
    }
  })

  it('reports a binding made for another Electron, ABI or better-sqlite3', () => {
    const r = checkElectronBinding(appRoot({ ...runtime, electron: '44.0.0', abi: '140' }), runtime)
    expect(r).toEqual({
      ok: false,
      why: expect.stringMatching(/electron 44\.0\.0 instead of 45\.5\.0, abi 140 instead of 150.*electron-native/),
    })
    expect(checkElectronBinding(appRoot({ ...runtime, betterSqlite3: '11.0.0' }), runtime).ok).toBe(false)
  })

  it('reports an unreadable stamp', () => {
    expect(checkElectronBinding(appRoot('{not json'), runtime)).toEqual({
      ok: false,
      why: expect.stringMatching(/unreadable/),
    })
  })
})

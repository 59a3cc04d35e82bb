/**
 * `carats` as users start it: the launcher electron/cli/carats.mjs (package.json's "bin" and
 * `npm run carats`), which runs the command line built ahead (out/main/cli.js) after making sure
 * out/ is fresh, and says in one line why it cannot start when out/ cannot be built.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt } from '../../electron/host/build'
import { caratsArgv, caratsEnv, LAUNCHER, ROOT } from './cli-process'

const dir = mkdtempSync(join(tmpdir(), 'carats-cli-launcher-'))

function carats(args: string[], env: NodeJS.ProcessEnv = {}, launcherArgv = caratsArgv(args)) {
  const r = spawnSync(process.execPath, launcherArgv, {
    cwd: dir,
    encoding: 'utf8',
    env: caratsEnv(env),
    timeout: 120_000,
  })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

beforeAll(() => ensureBuilt(), 300_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('the carats launcher', () => {
  it('runs the built command line, with its exit codes and one-line errors', () => {
    const rules = carats(['rules', '--json'])
    expect(rules.code, rules.err).toBe(0)
    expect(JSON.parse(rules.out)).toMatchObject({ blockSize: 8_016_000, unitPriceCents: expect.any(Number) })
    expect(rules.err).toBe('')

    const text = carats(['rules'])
    expect(text.code).toBe(0)
    expect(text.out).toMatch(/^500 000 CARATS: 5 € a unit, blocks of 8,016,000 units\n/)

    const bad = carats(['block', 'stats', '--secret', '12'])
    expect(bad.code).toBe(2)
    expect(bad.out).toBe('')
    expect(bad.err).toMatch(/^carats block stats: --secret must be 64 hexadecimal digits[^\n]*\n$/)

    const unknown = carats(['frobnicate'])
    expect(unknown.code).toBe(2)
    expect(unknown.err).toMatch(/^carats: unknown command "frobnicate" \(try: carats help\)\n$/)
  }, 120_000)

  it('stops quietly when its reader stops reading (carats rules | head -1)', () => {
    const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`
    const command = [process.execPath, ...caratsArgv(['rules'])].map(quote).join(' ')
    // whether the reader has gone before the last write is a race: try a few times
    for (let i = 0; i < 4; i++) {
      const r = spawnSync('bash', ['-o', 'pipefail', '-c', `${command} | head -1`], {
        cwd: dir,
        encoding: 'utf8',
        env: caratsEnv(),
        timeout: 120_000,
      })
      expect(r.stdout).toBe('500 000 CARATS: 5 € a unit, blocks of 8,016,000 units\n')
      expect(r.stderr).toBe('')
      expect(r.status).toBe(0)
    }
  }, 120_000)

  it('is what package.json names as the carats command and as `npm run carats`', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    expect(pkg.bin).toEqual({ carats: 'electron/cli/carats.mjs' })
    expect(pkg.scripts.carats).toBe('node electron/cli/carats.mjs')
    // npm installs a bin as a link to the file, run through its #! line
    expect(readFileSync(LAUNCHER, 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/)
  })

  it('opens a ledger with the Node build of better-sqlite3, whatever CARATS_SQLITE_BINDING says', () => {
    // The Electron main process points CARATS_SQLITE_BINDING at the Electron build of the driver,
    // which plain Node cannot load; inherited by the command line, it must not be used.
    const notNode = join(dir, 'electron-better_sqlite3.node')
    writeFileSync(notNode, 'not a Node addon')
    const db = join(dir, 'ledger.db')
    const r = carats(['--db', db, '--json', 'emission', 'list'], { CARATS_SQLITE_BINDING: notNode })
    expect(r.code, r.err).toBe(0)
    expect(JSON.parse(r.out)).toEqual([])
  }, 120_000)

  it('says in one line why it cannot start when out/ is missing and cannot be built', () => {
    // A project folder with the launcher and the build's rules, but neither out/ nor node_modules.
    const project = join(dir, 'project')
    for (const f of ['electron/cli/carats.mjs', 'electron/host/build.mjs', 'package.json']) {
      mkdirSync(join(project, f, '..'), { recursive: true })
      copyFileSync(join(ROOT, f), join(project, f))
    }
    const r = carats(['rules'], {}, [join(project, 'electron/cli/carats.mjs'), 'rules'])
    expect(r.code).toBe(1)
    expect(r.out).toBe('')
    const lines = r.err.trim().split('\n')
    // "Building the app (…)..." first, then the one line that says what is wrong and what to do
    expect(lines.at(-1)).toMatch(/^carats: cannot start: .*electron-vite is not installed.*npm install/)
    expect(lines.filter((l) => l.startsWith('carats: cannot start'))).toHaveLength(1)
    expect(lines.length).toBeLessThanOrEqual(2)
  }, 120_000)
})

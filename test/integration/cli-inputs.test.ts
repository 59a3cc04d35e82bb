/**
 * The command line's refusals of bad input, as a user meets them: a first sale day that does not
 * exist, and a sales feed that is not UTF-8 (where it stops being UTF-8).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ledgerArgs, testLedgerLocation } from '../support/ledger-engine'
import { ensureBuilt } from '../../electron/host/build'
import { caratsArgv, caratsEnv } from './cli-process'

const root = join(__dirname, '../..')
const dir = mkdtempSync(join(tmpdir(), 'carats-cli-inputs-'))
const ledger = testLedgerLocation(dir)
const feed = readFileSync(join(root, 'test/fixtures/sales-valid.jsonl'))

function carats(args: string[]) {
  const r = spawnSync(process.execPath, caratsArgv([...ledgerArgs(ledger), ...args]), {
    cwd: root,
    encoding: 'utf8',
    env: caratsEnv(),
    timeout: 170_000,
  })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

beforeAll(() => ensureBuilt(), 300_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.sequential('carats refuses', () => {
  const T = 180_000

  it(
    'a first sale day that does not exist, as a usage error, and creates nothing',
    () => {
      for (const day of ['2026-02-30', '2025-02-29', '2026-04-31']) {
        const r = carats(['emission', 'create', '--blocks', '1', '--starts', day])
        expect(r.code, r.err).toBe(2)
        expect(r.err).toContain(`--starts must be a day of the calendar: ${day} does not exist`)
      }
      const shape = carats(['emission', 'create', '--blocks', '1', '--starts', '2026-3-1'])
      expect(shape.code).toBe(2)
      expect(shape.err).toContain('--starts must be a date YYYY-MM-DD, got "2026-3-1"')
      const list = carats(['--json', 'emission', 'list'])
      expect(JSON.parse(list.out)).toEqual([])
      // a leap day is a day
      expect(carats(['emission', 'create', '--blocks', '1', '--starts', '2028-02-29']).code).toBe(0)
    },
    T,
  )

  it(
    'a feed that is not UTF-8, saying the line and the byte where it stops being UTF-8',
    () => {
      const lines = feed.toString('utf8').split('\n')
      // line 3's player id in Latin-1: é as the single byte 0xE9
      const at = lines[2].indexOf('"player":"') + '"player":"'.length
      const bad = Buffer.concat([
        Buffer.from(lines.slice(0, 2).join('\n') + '\n' + lines[2].slice(0, at)),
        Buffer.from([0x5a, 0x6f, 0xe9]),
        Buffer.from(lines[2].slice(at) + '\n'),
      ])
      const file = join(dir, 'latin1.jsonl')
      writeFileSync(file, bad)
      const offset = bad.indexOf(0xe9)
      const r = carats(['sales', 'import', file])
      expect(r.code).toBe(2)
      expect(r.err).toContain(
        `latin1.jsonl is not UTF-8 text: it stops being UTF-8 at line 3, byte ${at + 3} of that line (offset ${offset} in the file, counting from 0)`,
      )
    },
    T,
  )
})

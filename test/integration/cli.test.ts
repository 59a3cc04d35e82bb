/**
 * The `carats` ledger commands as a user runs them: one journey on a temporary ledger, each step
 * a real process (the launcher electron/cli/carats.mjs running the built out/main/cli.js, its
 * workers from out/main: see cli-process.ts), checked through its exit code and its JSON output.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ledgerArgs, testLedgerLocation } from '../support/ledger-engine'
import { withTestLedger } from '../support/test-ledgers'
import { ensureBuilt } from '../../electron/host/build'
import { validatePlay } from '../../game-core/play'
import { CARATS } from '../../game-core/carats'
import { parseSerial } from '../../game-core/serial'
import { caratsArgv, caratsEnv } from './cli-process'

const root = join(__dirname, '../..')
const dir = mkdtempSync(join(tmpdir(), 'carats-cli-'))
const ledger = testLedgerLocation(dir)
const feed = join(root, 'test/fixtures/sales-valid.jsonl')

function carats(args: string[], input?: string) {
  const r = spawnSync(process.execPath, caratsArgv([...ledgerArgs(ledger), ...args]), {
    cwd: root,
    encoding: 'utf8',
    input,
    env: caratsEnv(),
    timeout: 170_000,
  })
  return { code: r.status, out: r.stdout, err: r.stderr }
}
function json(args: string[]) {
  const r = carats(['--json', ...args])
  if (r.code !== 0) throw new Error(`carats ${args.join(' ')} exited ${r.code}: ${r.err}`)
  return JSON.parse(r.out)
}

beforeAll(() => ensureBuilt(), 300_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.sequential('carats ledger commands, one journey', () => {
  const T = 180_000
  let soldSerial = ''

  it(
    'creates, generates, verifies and opens an emission',
    () => {
      // a demonstration emission: the journey simulates sales in it
      expect(
        json(['emission', 'create', '--blocks', '1', '--starts', '2025-03-01', '--code', 'CLI-1', '--demo']),
      ).toMatchObject({ emission: 1, code: 'CLI-1', status: 'created', startsOn: '2025-03-01', demo: true })
      expect(json(['emission', 'generate', '1']).emission).toMatchObject({ status: 'generated', blocksGenerated: 1 })
      expect(json(['emission', 'verify', '1']).emission).toMatchObject({ status: 'verified', blocksVerified: 1 })
      expect(json(['emission', 'open', '1'])).toMatchObject({ status: 'open' })
      const list = carats(['emission', 'list'])
      expect(list.code).toBe(0)
      expect(list.out).toMatch(/CLI-1\s+DEMO\s+open\s+1 block, 0 \/ 8,016,000 units sold/)
    },
    T,
  )

  it(
    'imports a sales feed, then the same feed again as a no-op',
    () => {
      expect(json(['sales', 'import', feed])).toEqual({ lines: 20, imported: 20, alreadyImported: 0 })
      const again = carats(['sales', 'import', feed])
      expect(again.code).toBe(0)
      expect(again.out).toBe('sales-valid.jsonl: 20 lines, 0 sales imported, 20 already imported\n')
    },
    T,
  )

  it(
    'lists the imports, latest first, with the SHA-256 of each file',
    () => {
      const sha = createHash('sha256').update(readFileSync(feed)).digest('hex')
      const h = json(['sales', 'imports'])
      expect(h.total).toBe(2)
      expect(
        h.items.map((r: { result: string; sha256: string; fileName: string }) => [r.fileName, r.result, r.sha256]),
      ).toEqual([
        ['sales-valid.jsonl', 'already', sha],
        ['sales-valid.jsonl', 'imported', sha],
      ])
      const text = carats(['sales', 'imports', '--limit', '1'])
      expect(text.code).toBe(0)
      expect(text.out).toMatch(
        new RegExp(
          `^imports 1–1 of 2, latest first\\n\\S+Z  \\S+  sales-valid\\.jsonl  20 lines  already recorded\\n    sha256 ${sha}\\n$`,
        ),
      )
      expect(carats(['sales', 'imports', '--limit', '0']).code).toBe(2)
    },
    T,
  )

  it(
    'refuses a feed that is not UTF-8, naming the file, and imports nothing',
    () => {
      const bad = join(dir, 'latin1.jsonl')
      // a player id in Latin-1 (é as the single byte 0xE9)
      writeFileSync(bad, Buffer.concat([readFileSync(feed).subarray(0, 40), Buffer.from([0xe9]), Buffer.from('"}\n')]))
      const r = carats(['sales', 'import', bad])
      expect(r.code).toBe(2)
      expect(r.err).toMatch(/latin1\.jsonl is not UTF-8 text/)
      expect(json(['emission', 'list'])[0]).toMatchObject({ unitsSold: 20 })
    },
    T,
  )

  it(
    'simulates a small sales history',
    () => {
      const r = json(['simulate', '--emission', '1', '--sales', '2000', '--players', '50', '--seed', '7'])
      expect(r).toMatchObject({
        emission: 1,
        sold: 2000,
        players: 50,
        seed: 7,
        firstSerial: expect.stringMatching(/^0001-001-0000020-\d$/),
      })
      expect(r.lastSerial).toMatch(/^0001-001-0002019-\d$/)
    },
    T,
  )

  it(
    "shows a player's last units, newest first",
    () => {
      const r = json(['player', 'last', 'P1234567'])
      expect(r.player).toBe('P1234567')
      expect(r.units.length).toBe(10)
      for (const u of r.units)
        expect(u).toMatchObject({
          serial: expect.any(String),
          soldAt: expect.any(String),
          prizeCents: expect.any(Number),
        })
      const times = r.units.map((u: { soldAt: string }) => Date.parse(u.soldAt))
      expect([...times].sort((a, b) => b - a)).toEqual(times)
      soldSerial = r.units[0].serial
    },
    T,
  )

  it(
    'shows a sold ticket with its sale and play',
    () => {
      const t = json(['ticket', 'show', soldSerial])
      expect(t).toMatchObject({
        serial: soldSerial,
        sale: { player: 'P1234567', saleId: expect.any(String), soldAt: expect.any(String) },
      })
      expect(t.winning).toHaveLength(6)
      expect(t.numbers).toHaveLength(24)
      expect(t.amountsCents).toHaveLength(24)
      expect(typeof t.prizeCents).toBe('number')
      expect(validatePlay(t.play, CARATS)).toEqual([])
      const human = carats(['ticket', 'show', soldSerial])
      expect(human.out).toMatch(/winning numbers: (\d+ ){5}\d+/)
    },
    T,
  )

  it(
    'keeps an unsold ticket secret without a reason, and logs the inspection with one',
    () => {
      const unsold = '0001-001-0100000-1'
      expect(() => parseSerial(unsold)).not.toThrow()
      const refused = carats(['ticket', 'show', unsold])
      expect(refused.code).toBe(1)
      expect(refused.err).toMatch(/^carats ticket show: unit 0001-001-0100000-1 is not sold: give a reason/)
      const shown = json(['ticket', 'show', unsold, '--reason', 'complaint 42 check'])
      expect(shown).toMatchObject({ serial: unsold, sale: null, play: null })
    },
    T,
  )

  it(
    'reports the depletion of the block against the counters',
    () => {
      const r = json(['report', 'depletion', '--emission', '1', '--block', '1'])
      expect(r).toMatchObject({ unitsTotal: 8_016_000, unitsSold: 2020, asOf: expect.any(String) })
      expect(r.tiers.map((t: { amountCents: number; initial: number }) => [t.amountCents, t.initial])).toEqual(
        CARATS.tiers.map((t) => [t.amountCents, t.count]),
      )
      for (const t of r.tiers) expect(t.initial - t.sold).toBe(t.remaining)
      expect(r.series.length).toBe(301)
      expect(r.series.at(-1).unitsSold).toBe(2020)
      // a demonstration emission's sales count only when asked for
      expect(json(['report', 'dashboard'])).toMatchObject({ includesDemo: false, unitsSold: 0 })
      const dash = json(['report', 'dashboard', '--include-demo'])
      expect(dash).toMatchObject({ includesDemo: true, unitsSold: 2020, salesCents: 2020 * 500 })
    },
    T,
  )

  it(
    'verifies the audit log, where the CLI acts as the OS user',
    () => {
      expect(json(['audit', 'verify'])).toMatchObject({ ok: true, firstBad: null })
      const human = carats(['audit', 'verify'])
      expect(human.out).toMatch(
        /^audit log: \d+ entries, hash chain verified, keyed from entry 1\ncheckpoint (ok|behind) \(\d+ entries, head [0-9a-f]{64}/,
      )
      withTestLedger(ledger, (db) => {
        const actors = db
          .prepare(
            "SELECT DISTINCT actor FROM audit WHERE action IN ('emission.create', 'emission.open', 'sales.import', 'sales.simulate', 'ticket.inspect-unsold')",
          )
          .pluck()
          .all()
        expect(actors).toEqual([`os:${userInfo().username}`])
        const inspected = db
          .prepare("SELECT details FROM audit WHERE action = 'ticket.inspect-unsold'")
          .pluck()
          .get() as string
        expect(JSON.parse(inspected)).toEqual({ reason: 'complaint 42 check' })
      })
    },
    T,
  )

  it(
    'adds a user with the password on standard input',
    () => {
      const r = carats(
        ['--json', 'user', 'add', '--name', 'bob', '--role', 'admin', '--password-stdin'],
        'correct horse battery\n',
      )
      expect(r.code).toBe(0)
      expect(JSON.parse(r.out)).toMatchObject({ name: 'bob', role: 'admin', active: true })
      const short = carats(['user', 'add', '--name', 'carol', '--role', 'support', '--password-stdin'], 'short\n')
      expect(short.code).toBe(2)
      expect(short.err).toBe('carats user add: the password must have at least 8 characters\n')
    },
    T,
  )

  it(
    'refuses a mistyped serial with one line and a non-zero exit',
    () => {
      const bad = soldSerial.slice(0, -1) + String((Number(soldSerial.at(-1)) + 1) % 10)
      const r = carats(['ticket', 'show', bad])
      expect(r.code).toBe(1)
      expect(r.out).toBe('')
      expect(r.err).toBe(
        'carats ticket show: the check digit does not match: a digit was mistyped or two digits were swapped\n',
      )
      const usage = carats(['report', 'depletion'])
      expect(usage.code).toBe(2)
      expect(usage.err).toBe('carats report depletion: --emission is required\n')
    },
    T,
  )
})

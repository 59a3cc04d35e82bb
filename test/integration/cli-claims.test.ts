/**
 * `carats` and prize claims as a user runs them, each step a real process (cli-process.ts): an
 * emission created with its claim threshold (refused out of range, saying why), its claims listed
 * (every one, as the sales table says; by status) and shown, the dashboard's claims; the steps
 * taken in between through the services, as the screens take them.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ledgerArgs, testLedgerLocation } from '../support/ledger-engine'
import { withTestLedger } from '../support/test-ledgers'
import { ensureBuilt } from '../../electron/host/build'
import { splitUnitKey } from '../../electron/ledger/unit-key'
import { eur } from '../../electron/cli/command-kit'
import { openBackend } from '../../electron/app/backend'
import { formatSerial } from '../../game-core/serial'
import { caratsArgv, caratsEnv } from './cli-process'

const root = join(__dirname, '../..')
const dir = mkdtempSync(join(tmpdir(), 'carats-cli-claims-'))
const ledger = testLedgerLocation(dir)
const THRESHOLD = 10_000

function carats(args: string[]) {
  const r = spawnSync(process.execPath, caratsArgv([...ledgerArgs(ledger), ...args]), {
    cwd: root,
    encoding: 'utf8',
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
/** The ledger read with SQL of the test's own. */
function sql<T>(query: string, ...params: unknown[]): T[] {
  return withTestLedger(ledger, (d) => d.prepare(query).all(...params) as T[])
}
const serialOf = (key: number) => formatSerial(splitUnitKey(key))

beforeAll(() => ensureBuilt(), 300_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.sequential('carats and prize claims', () => {
  const T = 180_000
  const steps = { paid: '', rejected: '' }

  it(
    'refuses a claim threshold out of range with the reason, as a usage error, and creates nothing',
    () => {
      const odd = carats(['emission', 'create', '--blocks', '1', '--demo', '--claim-threshold-cents', '12345'])
      expect(odd.code, odd.err).toBe(2)
      expect(odd.err).toBe(
        'carats emission create: --claim-threshold-cents: the claim threshold must be whole euros from 1 € to the top prize, 500,000 €, not 12345 cents\n',
      )
      const above = carats(['emission', 'create', '--blocks', '1', '--demo', '--claim-threshold-cents', '60000000'])
      expect(above.code).toBe(2)
      expect(above.err).toContain('to the top prize, 500,000 €, not 60000000 cents')
      const shape = carats(['emission', 'create', '--blocks', '1', '--claim-threshold-cents', '100€'])
      expect(shape.code).toBe(2)
      expect(shape.err).toContain('--claim-threshold-cents must be a whole number, got "100€"')
      expect(json(['emission', 'list'])).toEqual([])
    },
    T,
  )

  it(
    'creates an emission with its threshold, shows it, and sells into it',
    () => {
      const e = json(['emission', 'create', '--blocks', '1', '--demo', '--claim-threshold-cents', String(THRESHOLD)])
      expect(e).toMatchObject({ emission: 1, claimThresholdCents: THRESHOLD })
      const plain = json(['emission', 'create', '--blocks', '1', '--demo', '--code', 'DEFAULT'])
      expect(plain.claimThresholdCents).toBe(500_000)
      for (const step of ['generate', 'verify', 'open']) json(['emission', step, '1'])
      const show = carats(['emission', 'show', '1'])
      expect(show.code).toBe(0)
      expect(show.out).toContain('claim threshold: 100 € (a prize from it up is claimed in person')
      expect(carats(['emission', 'show', '2']).out).toContain('claim threshold: 5 000 €')
      expect(json(['simulate', '--emission', '1', '--sales', '6000', '--players', '40', '--seed', '5'])).toMatchObject({
        sold: 6000,
      })
    },
    T,
  )

  it(
    'lists every claim as the sales table says, oldest sale first, in JSON and as a table',
    () => {
      const due = sql<{ unit_key: number; prize_cents: number; sold_at: number; name: string }>(
        'SELECT s.unit_key, s.prize_cents, s.sold_at, p.name FROM sales s JOIN players p ON p.id = s.player_id WHERE s.prize_cents >= ? ORDER BY s.sold_at, s.unit_key',
        THRESHOLD,
      )
      expect(due.length).toBeGreaterThan(20)
      const list = json(['claim', 'list'])
      expect(list.map((c: { serial: string }) => c.serial)).toEqual(due.map((d) => serialOf(d.unit_key)))
      expect(list[0]).toEqual(
        expect.objectContaining({
          serial: serialOf(due[0].unit_key),
          emission: 1,
          prizeCents: due[0].prize_cents,
          player: due[0].name,
          soldAt: new Date(due[0].sold_at).toISOString(),
          status: 'pending',
          verified: null,
          approved: null,
          paid: null,
          rejected: null,
        }),
      )
      const text = carats(['claim', 'list'])
      expect(text.code).toBe(0)
      const lines = text.out.trimEnd().split('\n')
      expect(lines[0]).toMatch(new RegExp(`^${due.length} claims, .* € in all, oldest sale first:$`))
      expect(lines[1]).toMatch(/^serial\s+emission\s+player\s+prize\s+sold at\s+status\s+last step$/)
      expect(lines).toHaveLength(due.length + 2)
      // the oldest claim's prize: 100 € mostly, 1 000 € about once in 80 runs (the blocks' secrets are random)
      expect(lines[2]).toMatch(
        new RegExp(
          `^${serialOf(due[0].unit_key)}\\s+1\\s+${due[0].name}\\s+${eur(due[0].prize_cents)}\\s+${new Date(due[0].sold_at).toISOString()}\\s+pending\\s+-$`,
        ),
      )
      // the steps below are taken on two claims of 100 €, which the figures printed after them say
      const hundreds = list.filter((c: { prizeCents: number }) => c.prizeCents === THRESHOLD)
      steps.paid = hundreds[0].serial
      steps.rejected = hundreds[1].serial
    },
    T,
  )

  it(
    'filters by status, emission and player, and prints the last step and who took it',
    async () => {
      const b = openBackend({ dbPath: ledger.location, keyFile: ledger.keyFile })
      try {
        // the staff as accounts (a claim's steps are taken by them): the first auditor confirmed by the system, the manager by her
        const u = b.services.users
        u.setup('ada', 'correct horse battery')
        const admin = { name: 'ada', role: 'admin' as const }
        for (const [name, role] of [
          ['suzy', 'support'],
          ['aude', 'auditor'],
          ['max', 'manager'],
        ] as const)
          u.create(admin, { name, role, password: 'correct horse battery' })
        u.confirm({ name: 'aude', role: 'auditor' }, u.list().find((x) => x.name === 'max')!.id)
        const c = b.services.claims
        c.verify({ name: 'suzy', role: 'support' }, steps.paid, { document: 'passport', reference: '18AB12345' })
        c.approve({ name: 'max', role: 'manager' }, steps.paid)
        c.pay({ name: 'ada', role: 'admin' }, steps.paid, 'VIR-2026-001')
        c.reject({ name: 'aude', role: 'auditor' }, steps.rejected, 'stolen ticket')
      } finally {
        await b.closeGracefully()
      }
      const paid = carats(['claim', 'list', '--status', 'paid'])
      expect(paid.code).toBe(0)
      expect(paid.out.split('\n')[0]).toBe('1 claim paid, 100 € in all, oldest sale first:')
      expect(paid.out).toMatch(new RegExp(`${steps.paid}\\s.*\\spaid\\s+paid by ada\\n$`))
      const rejected = json(['claim', 'list', '--status', 'rejected'])
      expect(rejected).toEqual([
        expect.objectContaining({
          serial: steps.rejected,
          status: 'rejected',
          rejected: expect.objectContaining({ by: 'aude', reason: 'stolen ticket', from: 'pending' }),
        }),
      ])
      const player = json(['claim', 'list'])[0].player as string
      const mine = json(['claim', 'list', '--player', player.toLowerCase(), '--emission', '1'])
      expect(mine.length).toBe(
        sql('SELECT 1 FROM claims c JOIN players p ON p.id = c.player_id WHERE p.name = ?', player).length,
      )
      expect(json(['claim', 'list', '--emission', '2'])).toEqual([])
      expect(carats(['claim', 'list', '--emission', '2']).out).toBe('no claim of emission 2\n')
    },
    T,
  )

  it(
    "shows a claim with its steps, the player's figures and register entries",
    () => {
      const r = carats(['claim', 'show', steps.paid])
      expect(r.code, r.err).toBe(0)
      expect(r.out).toMatch(new RegExp(`^claim on ${steps.paid} \\(emission 1(, DEMO)?\\): 100 €, paid\\n`))
      expect(r.out).toMatch(
        /\n {2}verified {2}suzy at \S+: passport …2345\n {2}approved {2}max at \S+\n {2}paid {6}ada at \S+: payment VIR-2026-001\n/,
      )
      expect(r.out).toMatch(/\nplayer \S+: \d+ units bought, \d+ claims?/)
      expect(r.out).toContain('register of related parties: no entry for this player')
      const d = json(['claim', 'show', steps.paid])
      expect(d).toMatchObject({
        claim: { serial: steps.paid, status: 'paid', paid: { by: 'ada', reference: 'VIR-2026-001' } },
        parties: [],
        figures: { claims: expect.any(Number) },
      })
    },
    T,
  )

  it(
    'refuses a bad status or serial as a usage error, and says why a unit has no claim',
    () => {
      const status = carats(['claim', 'list', '--status', 'won'])
      expect(status.code).toBe(2)
      expect(status.err).toBe(
        'carats claim list: --status must be one of pending, verified, approved, paid, rejected, expired, got "won"\n',
      )
      const malformed = carats(['claim', 'show', '0001-001-12'])
      expect(malformed.code).toBe(2)
      expect(malformed.err).toMatch(/^carats claim show: "0001-001-12" is not a serial: /)
      const none = carats(['claim', 'show'])
      expect(none.code).toBe(2)
      const losing = serialOf(
        sql<{ unit_key: number }>('SELECT unit_key FROM sales WHERE prize_cents = 0 ORDER BY unit_key LIMIT 1')[0]
          .unit_key,
      )
      const lost = carats(['claim', 'show', losing])
      expect(lost.code).toBe(1)
      expect(lost.err).toBe(`carats claim show: unit ${losing} did not win: there is no prize to claim\n`)
      const unsold = formatSerial({ emission: 1, block: 1, unit: 7_000_000 })
      expect(carats(['claim', 'show', unsold]).err).toBe(
        `carats claim show: unit ${unsold} is not sold: only a sold unit's prize is claimed\n`,
      )
    },
    T,
  )

  it(
    "prints the dashboard's claims and its liability in two parts",
    () => {
      const r = carats(['report', 'dashboard', '--include-demo'])
      expect(r.code, r.err).toBe(0)
      const pending = sql<{ n: number; cents: number }>(
        "SELECT count(*) AS n, coalesce(sum(prize_cents), 0) AS cents FROM claims WHERE status = 'pending'",
      )[0]
      expect(r.out).toMatch(
        /\nprizes to pay \(as of now\): won, not yet paid [\d ]+ €; still in unsold units [\d ]+ €\n/,
      )
      expect(r.out).toContain(`claims: pending ${pending.n} (`)
      expect(r.out).toContain('paid 1 (100 €), rejected 1 (100 €)')
      const d = json(['report', 'dashboard', '--include-demo'])
      expect(d.claims.unpaidCents).toBe(pending.cents)
    },
    T,
  )
})

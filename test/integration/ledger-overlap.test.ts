/**
 * Workstations writing side by side on one team ledger (issue 30, item 2): while one holds a
 * feed's import open (a process of its own, ledger-overlap-child.ts: every lock an import takes
 * held), another signs in, steps a claim and imports into another emission without waiting for
 * it; a sale from the held emission waits (its cursor is the import's). Two imports into two
 * emissions, for the same players, run at once. Afterwards no unit is sold twice, the players'
 * chains and totals are whole, there is one audit chain, and the ledger check is sound.
 * PostgreSQL only for the holding: a SQLite file keeps one writer at a time.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatSerial } from '../../game-core/serial'
import { splitUnitKey } from '../../electron/ledger/unit-key'
import { openBackend, type Backend } from '../../electron/app/backend'
import { checkLedger } from '../../electron/services/ledger-office'
import { testEngine, type TestLedgerLocation } from '../support/ledger-engine'
import { expectSoundLedger } from './ledger-crash-checks'
import { actor, openEmissionLedger, PASSWORD, TEMPLATE_STARTS_ON, tempDir, USERS } from './ledger-fixture'

const ROOT = join(__dirname, '..', '..')
const CHILD = join(__dirname, 'ledger-overlap-child.ts')
const onPg = testEngine() === 'postgres'

let dir: string
let ledger: TestLedgerLocation
/** The pending claims of emission 2, by serial. */
let claims: string[] = []

/** A backend of this process on the ledger; its lock waits end after `waitMs` (a wait is then a refusal, not a hang). */
const station = (waitMs = 5_000): Backend =>
  openBackend({ dbPath: ledger.location, keyFile: ledger.keyFile, threads: 1, busyTimeoutMs: waitMs })

beforeAll(async () => {
  dir = tempDir('overlap')
  ledger = await openEmissionLedger(dir)
  const b = station()
  try {
    // emission 2, every win a claim (1 €), a few sold
    const s = b.services
    s.emissions.create(actor('operator'), {
      blocks: 1,
      code: 'TEST-2',
      startsOn: TEMPLATE_STARTS_ON,
      demo: true,
      claimThresholdCents: 100,
    })
    expect((await s.jobs.wait(s.emissions.generate(actor('operator'), 2).id)).state).toBe('done')
    expect((await s.jobs.wait(s.emissions.verify(actor('operator'), 2).id)).state).toBe('done')
    s.emissions.open(actor('operator'), 2)
    s.sales.sellBatch(
      Array.from({ length: 300 }, (_, i) => ({
        emission: 2,
        player: `claimant${i % 7}`,
        soldAt: Date.parse('2026-03-02T10:00:00Z') + i * 1000,
      })),
      { records: false },
    )
    // players that the held feed of a test below sells to again (h100 … h399 are new to it)
    s.sales.sellBatch(
      Array.from({ length: 100 }, (_, i) => ({
        emission: 2,
        player: `h${i}`,
        soldAt: Date.parse('2026-03-02T11:00:00Z') + i * 1000,
      })),
      { records: false },
    )
    claims = (
      s.db.prepare("SELECT unit_key FROM claims WHERE status = 'pending' ORDER BY unit_key").pluck().all() as number[]
    ).map((k) => formatSerial(splitUnitKey(k)))
  } finally {
    await b.closeGracefully()
  }
}, 300_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Child {
  proc: ChildProcess
  /** Resolves with the line's time once the child printed a line starting with `word`. */
  line(word: string): Promise<number>
  ended: Promise<void>
}

function child(...args: string[]): Child {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, args[0], ledger.location, ledger.keyFile ?? '', ...args.slice(1)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const seen = new Map<string, number>()
  const waiting = new Map<string, (t: number) => void>()
  let stderr = ''
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
    for (const l of d.split('\n').filter(Boolean)) {
      const [word, ...rest] = l.split(' ')
      const t = Number(rest[rest.length - 1])
      seen.set(word, t)
      waiting.get(word)?.(t)
    }
  })
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  const ended = new Promise<void>((resolve, reject) =>
    proc.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`the child ${args[0]} ended with ${code}: ${stderr}`)),
    ),
  )
  const line = (word: string) =>
    new Promise<number>((resolve, reject) => {
      if (seen.has(word)) return resolve(seen.get(word)!)
      waiting.set(word, resolve)
      ended.then(
        () => (seen.has(word) ? resolve(seen.get(word)!) : reject(new Error(`the child ended without ${word}`))),
        reject,
      )
    })
  return { proc, line, ended }
}

/** The ledger as the issue asks it to be after any run: sound by SQL, by the audit log and by the ledger check. */
async function expectWhole(): Promise<void> {
  expectSoundLedger(ledger.location)
  const b = station()
  try {
    const { db, catalog, audit, clock, dbPath } = b.services
    const report = await checkLedger({ db, catalog, audit, clock, dbPath }, { prizes: false })
    expect({ ok: report.ok, audit: report.audit.ok, data: report.data.ok }).toEqual({
      ok: true,
      audit: true,
      data: true,
    })
  } finally {
    await b.closeGracefully()
  }
}

describe.runIf(onPg)('while another workstation holds a feed of emission 1 open', () => {
  it('a sign-in, a claim step and an import into emission 2 answer at once; a sale of emission 1 waits for it', async () => {
    const release = join(dir, 'release-1')
    const holder = child('hold', release, '20000', '400', 'p')
    await holder.line('holding')
    const b = station(1_500)
    try {
      await besideTheHolder(b)
    } finally {
      await b.closeGracefully()
      // all of it done while the holder still held its transaction
      writeFileSync(release, '')
    }
    await holder.line('committed')
    await holder.ended
    await expectWhole()
  }, 240_000)
})

/** What another workstation does while emission 1's feed is held: each must answer without waiting for it. */
async function besideTheHolder(b: Backend): Promise<void> {
  const s = b.services
  const session = await s.users.login(USERS.support, PASSWORD)
  expect(session.user.name).toBe(USERS.support)
  expect(s.claims.verify(actor('support'), claims[0], { document: 'passport', reference: '18AB12345' }).status).toBe(
    'verified',
  )
  const feed = s.sales.nextUnit(2)!
  const lines = Array.from({ length: 50 }, (_, i) =>
    JSON.stringify({
      saleId: `B-${i}`,
      serial: formatSerial({ emission: 2, block: feed.block, unit: feed.unit + i }),
      player: `b${i}`,
      soldAt: '2026-03-04T10:00:00Z',
      stakeCents: 500,
      play: null,
    }),
  )
  expect((await s.importer.importContent(actor('operator'), lines.join('\n') + '\n', 'beside.jsonl')).imported).toBe(50)
  // the held emission's cursor is the import's: the sale waits, and is refused once it waited too long
  expect(() => s.sales.sellNext(1, { player: 'late', soldAt: Date.parse('2026-03-04T10:00:00Z') })).toThrow(
    /another workstation/,
  )
}

describe.runIf(onPg)("a feed for the players of another workstation's held feed", () => {
  it('waits for it, then links its sales onto the chains it made: every chain and total whole', async () => {
    // h0 … h99 have sales already (their heads read before the wait), h100 … h399 are new to both
    const release = join(dir, 'release-2')
    const holder = child('hold', release, '8000', '400', 'h')
    await holder.line('holding')
    const feed = child('import', '2', '4000', '21', 'h', '400')
    await feed.line('importing')
    await waitingForALock()
    writeFileSync(release, '')
    await Promise.all([holder.ended, feed.ended])
    await expectWhole()
  }, 240_000)
})

describe('two workstations importing into two emissions at the same time', () => {
  it('both import, for the same players, and leave every chain and total whole', async () => {
    const one = child('import', '1', '6000', '11', 'both', '500')
    const two = child('import', '2', '6000', '12', 'both', '500')
    await Promise.all([one.ended, two.ended])
    await expectWhole()
  }, 240_000)
})

/** Resolves once a connection to the ledger waits for a lock (the feed, for the held feed's players). */
async function waitingForALock(): Promise<void> {
  const b = station()
  try {
    const waiting = b.services.db
      .prepare("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
      .pluck()
    for (let i = 0; i < 600 && (waiting.get() as number) === 0; i++) await new Promise((r) => setTimeout(r, 100))
    expect(waiting.get()).toBeGreaterThan(0)
  } finally {
    await b.closeGracefully()
  }
}

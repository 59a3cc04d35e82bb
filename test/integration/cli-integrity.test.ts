/**
 * The ledger as a system of record, from the outside: `carats backup`, `restore`, `ledger check`,
 * `audit verify | export | reanchor` and the key file, run as an IT administrator, an auditor or
 * an attacker would, each step a real process (the launcher electron/cli/carats.mjs running the
 * built out/main/cli.js, its workers from out/main: see cli-process.ts), judged by its exit code,
 * its output and the files it leaves.
 *
 * The attacker works on the files directly (better-sqlite3 from this process, with the app
 * closed): dropping the audit log's triggers, cutting or rewriting it, rolling the file back,
 * removing or replacing the key. Every test works in a temp folder of its own, on a copy of one
 * base ledger: the fixture's template (emission 1 open, one verified block) with 3,000 simulated
 * sales, on emission 1 or, where simulations go only to demonstration emissions, on a
 * demonstration emission of one block made for them.
 *
 * SQLite only (left out of the postgres project in vitest.config.ts): the attacks and backups
 * here work on the file.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { entryHash, GENESIS_HASH, type AuditRow } from '../../electron/services/audit'
import { formatSerial } from '../../game-core/serial'
import { ensureBuilt } from '../../electron/host/build'
import { tempDir, sqliteTemplatePath } from './ledger-fixture'
import { caratsArgv, caratsEnv } from './cli-process'

const ROOT = join(__dirname, '..', '..')
const T = 120_000
const BASE_SALES = 3000
/** A unit far beyond what any test sells: showing it needs a reason, and writes an audit entry. */
const UNSOLD = '0001-001-0100000-1'

const keyOf = (db: string) => `${db}.key`
const checkpointOf = (db: string) => `${db}.audit-checkpoint`

interface Run {
  code: number | null
  out: string
  err: string
  /** stdout and stderr together, for "the output says …" */
  text: string
}

/** `carats --db <db> <args>` as a child process; `done` resolves when it has exited. */
function start(db: string, args: string[]): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(process.execPath, caratsArgv(['--db', db, ...args]), {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: caratsEnv(),
  })
  let out = ''
  let err = ''
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d))
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d))
  const timer = setTimeout(() => child.kill('SIGKILL'), T - 5000)
  const done = new Promise<Run>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, out, err, text: out + err })
    })
  })
  return { child, done }
}

const carats = (db: string, ...args: string[]) => start(db, args).done

async function json<T = Record<string, unknown>>(db: string, ...args: string[]): Promise<T> {
  const r = await carats(db, '--json', ...args)
  if (r.code !== 0) throw new Error(`carats ${args.join(' ')} exited ${r.code}: ${r.text}`)
  return JSON.parse(r.out) as T
}

/**
 * The ledger file opened read-write from this process, then closed: a read-only connection
 * would leave `-wal` and `-shm` files behind, which a restore rightly takes for an open ledger.
 */
function withDb<T>(path: string, fn: (db: Database.Database) => T): T {
  const db = new Database(path, { fileMustExist: true })
  try {
    return fn(db)
  } finally {
    db.close()
  }
}

/** What an attacker with the file does first: the append-only triggers go. */
function asAttacker<T>(path: string, fn: (db: Database.Database) => T): T {
  return withDb(path, (db) => {
    db.exec('DROP TRIGGER IF EXISTS audit_no_update; DROP TRIGGER IF EXISTS audit_no_delete')
    return fn(db)
  })
}

const salesCount = (path: string) =>
  withDb(path, (db) => db.prepare('SELECT count(*) FROM sales').pluck().get() as number)
const auditCount = (path: string) =>
  withDb(path, (db) => db.prepare('SELECT count(*) FROM audit').pluck().get() as number)
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')
const mode = (path: string) => statSync(path).mode & 0o777
/** The files of the test's ledger (ledger.db and whatever is named after it) in `dir`. */
const ledgerFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.startsWith('ledger.db'))
    .sort()

let baseDir = ''
let baseDb = ''
/** The emission the simulations sell. */
let E = 1
/** Emissions in the base ledger. */
let baseEmissions = 0
/** The first unit the base's simulation sold. */
let soldSerial = ''
const dirs: string[] = []

/** A copy of the base ledger (file, key, checkpoint) in a temp folder of the test's own. */
function ledgerCopy(label: string): { dir: string; db: string } {
  const dir = tempDir(`integrity-${label}`)
  dirs.push(dir)
  const db = join(dir, 'ledger.db')
  copyFileSync(baseDb, db)
  copyFileSync(keyOf(baseDb), keyOf(db))
  chmodSync(keyOf(db), 0o600)
  copyFileSync(checkpointOf(baseDb), checkpointOf(db))
  return { dir, db }
}

beforeAll(async () => {
  await ensureBuilt()
  const template = await sqliteTemplatePath()
  baseDir = tempDir('integrity-base')
  baseDb = join(baseDir, 'ledger.db')
  copyFileSync(template, baseDb)
  copyFileSync(keyOf(template), keyOf(baseDb))
  chmodSync(keyOf(baseDb), 0o600)
  const simulate = ['simulate', '--emission', '1', '--sales', String(BASE_SALES), '--seed', '1']
  let sim = await carats(baseDb, '--json', ...simulate)
  if (sim.code !== 0 && /is a real emission/.test(sim.err)) {
    // simulated sales go only to demonstration emissions: one of one block, generated and opened
    E = (await json<{ emission: number }>(baseDb, 'emission', 'create', '--blocks', '1', '--demo', '--code', 'DEMO-IT'))
      .emission
    for (const step of ['generate', 'verify', 'open']) await json(baseDb, 'emission', step, String(E))
    simulate[2] = String(E)
    sim = await carats(baseDb, '--json', ...simulate)
  }
  expect(sim.code, sim.text).toBe(0)
  const sold = JSON.parse(sim.out) as { sold: number; firstSerial: string }
  expect(sold.sold).toBe(BASE_SALES)
  soldSerial = sold.firstSerial
  baseEmissions = (await json<unknown[]>(baseDb, 'emission', 'list')).length
  // The fixture copies the template's file and key but not its checkpoint: a template whose log
  // was keyed when it was built then has none, and this base must start one deliberately.
  const v = await carats(baseDb, 'audit', 'verify')
  if (v.code !== 0) {
    expect(v.text).toMatch(/checkpoint missing/)
    expect(
      (
        await carats(
          baseDb,
          'audit',
          'reanchor',
          '--reason',
          'test base: the template was copied without its checkpoint',
        )
      ).code,
    ).toBe(0)
  }
  expect((await carats(baseDb, 'audit', 'verify')).code).toBe(0)
  expect(existsSync(`${baseDb}-wal`)).toBe(false)
}, 540_000)

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

afterAll(() => {
  if (baseDir) rmSync(baseDir, { recursive: true, force: true })
})

describe('carats backup', () => {
  it(
    'writes one self-contained file with its key and checkpoint, refuses to overwrite it, and logs it',
    async () => {
      const { dir, db } = ledgerCopy('backup')
      const copy = join(dir, 'copy.db')
      const r = await carats(db, 'backup', copy)
      expect(r.code, r.text).toBe(0)
      expect(existsSync(copy)).toBe(true)
      expect(mode(keyOf(copy))).toBe(0o600)
      expect(readFileSync(keyOf(copy), 'utf8')).toBe(readFileSync(keyOf(db), 'utf8'))
      expect(existsSync(checkpointOf(copy))).toBe(true)
      // one file: a rollback-journal database (header bytes 18-19 are 2 for WAL), nothing beside it
      const header = readFileSync(copy).subarray(0, 20)
      expect([header[18], header[19]]).toEqual([1, 1])
      expect(existsSync(`${copy}-wal`)).toBe(false)
      expect(existsSync(`${copy}-shm`)).toBe(false)
      expect(withDb(copy, (c) => c.pragma('journal_mode', { simple: true }))).toBe('delete')
      expect(salesCount(copy)).toBe(BASE_SALES)

      const before = {
        file: sha(copy),
        key: sha(keyOf(copy)),
        checkpoint: sha(checkpointOf(copy)),
        mtime: statSync(copy).mtimeMs,
      }
      const again = await carats(db, 'backup', copy)
      expect(again.code).not.toBe(0)
      expect(again.text).toMatch(/already exists/)
      expect({
        file: sha(copy),
        key: sha(keyOf(copy)),
        checkpoint: sha(checkpointOf(copy)),
        mtime: statSync(copy).mtimeMs,
      }).toEqual(before)

      const logged = withDb(
        db,
        (l) => l.prepare("SELECT details FROM audit WHERE action = 'ledger.backup'").pluck().all() as string[],
      )
      expect(logged).toHaveLength(1)
      expect(JSON.parse(logged[0])).toMatchObject({ file: copy, ok: true })

      const check = await carats(copy, 'ledger', 'check')
      expect(check.code, check.text).toBe(0)
    },
    T,
  )

  it(
    'is consistent when taken while another process is selling on the ledger',
    async () => {
      const { dir, db } = ledgerCopy('backup-live')
      const copy = join(dir, 'live-copy.db')
      // far more than it sells while the backup runs (its batches grow to 200,000 sales, ~1.5 s
      // each); it is cancelled with Ctrl-C once the backup is done, between two of its batches
      const SALES = 2_000_000
      const sim = start(db, ['simulate', '--emission', String(E), '--sales', String(SALES), '--seed', '2'])
      try {
        // the backup starts once the simulation has committed its first batch
        const watcher = new Database(db, { fileMustExist: true })
        try {
          const count = watcher.prepare('SELECT count(*) FROM sales').pluck()
          const deadline = Date.now() + 60_000
          while ((count.get() as number) <= BASE_SALES && sim.child.exitCode === null && Date.now() < deadline)
            await new Promise((r) => setTimeout(r, 50))
        } finally {
          watcher.close()
        }
        expect(sim.child.exitCode, 'the simulation ended before the backup started').toBeNull()
        const b = await carats(db, 'backup', copy)
        expect(b.code, b.text).toBe(0)
        expect(sim.child.exitCode, 'the simulation ended before the backup did').toBeNull()
      } finally {
        sim.child.kill('SIGINT')
        await sim.done
      }

      // the snapshot fell in the middle of the simulation: some of its batches, not all
      const inCopy = salesCount(copy)
      expect(inCopy).toBeGreaterThan(BASE_SALES)
      expect(inCopy).toBeLessThan(BASE_SALES + SALES)
      const check = await carats(copy, 'ledger', 'check')
      expect(check.code, check.text).toBe(0)
    },
    T,
  )
})

describe('carats restore', () => {
  it(
    'restores into a new path, refuses to overwrite without --replace, moves the old ledger aside with it, and refuses an open ledger',
    async () => {
      const { dir, db } = ledgerCopy('restore')
      const copy = join(dir, 'copy.db')
      expect((await carats(db, 'backup', copy)).code).toBe(0)
      // the ledger moves on after its backup
      expect((await carats(db, 'simulate', '--emission', String(E), '--sales', '500', '--seed', '3')).code).toBe(0)
      expect(salesCount(db)).toBe(BASE_SALES + 500)

      // into a new path
      const fresh = join(dir, 'restored.db')
      const r = await carats(fresh, 'restore', copy)
      expect(r.code, r.text).toBe(0)
      expect(salesCount(fresh)).toBe(BASE_SALES)
      expect(mode(keyOf(fresh))).toBe(0o600)
      const v = await carats(fresh, 'audit', 'verify')
      expect(v.code, v.text).toBe(0)

      // over an existing ledger, without --replace: refused, nothing changed
      const files = [db, keyOf(db), checkpointOf(db)]
      const state = () => files.map(sha)
      const listing = () => readdirSync(dir).sort()
      const before = state()
      const names = listing()
      const refused = await carats(db, 'restore', copy)
      expect(refused.code).not.toBe(0)
      expect(refused.text).toMatch(/--replace/)
      expect(state()).toEqual(before)
      expect(listing()).toEqual(names)

      // the ledger is open (its -wal exists): refused even with --replace, nothing changed
      const holder = new Database(db, { fileMustExist: true })
      try {
        holder.pragma('journal_mode = WAL')
        holder.prepare('SELECT count(*) FROM sales').get()
        expect(existsSync(`${db}-wal`)).toBe(true)
        const open = await carats(db, 'restore', copy, '--replace')
        expect(open.code).not.toBe(0)
        expect(open.text).toMatch(/is open/)
        expect(state()).toEqual(before)
        expect(readdirSync(dir).filter((f) => f.includes('before-restore'))).toEqual([])
      } finally {
        holder.close()
      }
      expect(existsSync(`${db}-wal`)).toBe(false)

      // with --replace: the old ledger is kept aside, with its key, and still opens
      const replaced = await carats(db, 'restore', copy, '--replace')
      expect(replaced.code, replaced.text).toBe(0)
      expect(salesCount(db)).toBe(BASE_SALES)
      const aside = readdirSync(dir).filter((f) => /^ledger\.db\.before-restore-[^.]+$/.test(f))
      expect(aside).toHaveLength(1)
      const old = join(dir, aside[0])
      expect(sha(old)).toBe(before[0])
      expect(sha(keyOf(old))).toBe(before[1])
      expect(mode(keyOf(old))).toBe(0o600)
      const [list, oldVerify, newVerify] = await Promise.all([
        json<{ emission: number; unitsSold: number }[]>(old, 'emission', 'list'),
        carats(old, 'audit', 'verify'),
        carats(db, 'audit', 'verify'),
      ])
      expect(list.find((e) => e.emission === E)?.unitsSold).toBe(BASE_SALES + 500)
      expect(oldVerify.code, oldVerify.text).toBe(0)
      expect(newVerify.code, newVerify.text).toBe(0)
    },
    T,
  )
})

describe('carats ledger check', () => {
  it(
    'finds a sound ledger sound, and names the sale and block edited behind its back',
    async () => {
      const { db } = ledgerCopy('check')
      const clean = await carats(db, 'ledger', 'check')
      expect(clean.code, clean.text).toBe(0)
      expect(clean.out).toMatch(/: sound \(/)

      const edit = withDb(db, (l) => {
        const sale = l
          .prepare(
            'SELECT unit_key, emission, block, unit, prize_cents FROM sales WHERE emission = ? AND prize_cents > 0 ORDER BY unit_key LIMIT 1',
          )
          .get(E) as {
          unit_key: number
          emission: number
          block: number
          unit: number
          prize_cents: number
        }
        const block = l
          .prepare('SELECT emission, block, units_sold FROM blocks WHERE emission = ? AND block = 1')
          .get(E) as { emission: number; block: number; units_sold: number }
        l.prepare('UPDATE sales SET prize_cents = ? WHERE unit_key = ?').run(sale.prize_cents + 100, sale.unit_key)
        l.prepare('UPDATE blocks SET units_sold = ? WHERE emission = ? AND block = 1').run(block.units_sold + 5, E)
        return { sale, block, serial: formatSerial({ emission: sale.emission, block: sale.block, unit: sale.unit }) }
      })
      expect(edit.block.units_sold).toBe(BASE_SALES)

      const bad = await carats(db, 'ledger', 'check')
      expect(bad.code).toBe(1)
      expect(bad.out).toMatch(/NOT SOUND/)
      const prizeLine = bad.out.split('\n').find((l) => l.includes(edit.serial))
      expect(prizeLine, bad.out).toBeDefined()
      expect(prizeLine).toContain(`${edit.sale.prize_cents + 100} cents`)
      expect(prizeLine).toContain(`${edit.sale.prize_cents} cents`)
      const blockLine = bad.out.split('\n').find((l) => l.includes(`block ${E}/1`))
      expect(blockLine, bad.out).toBeDefined()
      expect(blockLine).toContain(String(BASE_SALES + 5))
      expect(blockLine).toContain(String(BASE_SALES))

      const j = await carats(db, '--json', 'ledger', 'check')
      expect(j.code).toBe(1)
      const doc = JSON.parse(j.out) as {
        ok: boolean
        data: {
          problems: {
            kind: string
            row: Record<string, unknown>
            field: string
            stored: unknown
            recomputed: unknown
          }[]
        }
      }
      expect(doc.ok).toBe(false)
      expect(doc.data.problems).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            kind: 'PRIZE_MISMATCH',
            row: expect.objectContaining({ serial: edit.serial }),
            field: 'prize_cents',
            stored: edit.sale.prize_cents + 100,
            recomputed: edit.sale.prize_cents,
          }),
          expect.objectContaining({
            kind: 'BLOCK_UNITS_SOLD',
            row: expect.objectContaining({ emission: E, block: 1 }),
            field: 'units_sold',
            stored: BASE_SALES + 5,
            recomputed: BASE_SALES,
          }),
        ]),
      )
    },
    T,
  )
})

describe('the audit log, anchored outside the file', () => {
  it(
    'sees a cut tail, and writing more entries does not hide it',
    async () => {
      const { db } = ledgerCopy('audit-cut')
      const n = auditCount(db)
      asAttacker(db, (l) => l.prepare('DELETE FROM audit WHERE seq > ?').run(n - 2))
      const v = await carats(db, 'audit', 'verify')
      expect(v.code).toBe(1)
      expect(v.text).toMatch(/cut/)
      // three new entries take the log past the checkpoint's count: the checkpoint must not follow
      const more = await Promise.all([
        carats(db, 'simulate', '--emission', String(E), '--sales', '10', '--seed', '4'),
        carats(db, 'ticket', 'show', UNSOLD, '--reason', 'support case 1234'),
      ])
      for (const r of more) expect(r.code, r.text).toBe(0)
      expect(auditCount(db)).toBeGreaterThan(n)
      const later = await carats(db, 'audit', 'verify')
      expect(later.code, later.text).toBe(1)
    },
    T,
  )

  it(
    'sees a wiped log',
    async () => {
      const { db } = ledgerCopy('audit-wipe')
      asAttacker(db, (l) => l.prepare('DELETE FROM audit').run())
      const v = await carats(db, 'audit', 'verify')
      expect(v.code, v.text).toBe(1)
      expect(v.text).toMatch(/cut/)
    },
    T,
  )

  // Found by this test and fixed: a wiped log with its keying mark and checkpoint gone was taken for a new one.
  it(
    'sees a log wiped together with its keying mark and its checkpoint',
    async () => {
      const { db } = ledgerCopy('audit-wipe-all')
      asAttacker(db, (l) => {
        l.exec('DROP TRIGGER ledger_meta_no_delete')
        l.prepare('DELETE FROM audit').run()
        l.prepare("DELETE FROM ledger_meta WHERE name = 'audit_keyed_from'").run()
      })
      unlinkSync(checkpointOf(db))
      const v = await carats(db, 'audit', 'verify')
      expect(v.code, v.text).toBe(1)
      expect(existsSync(checkpointOf(db))).toBe(false)
    },
    T,
  )

  it(
    'sees a log rewritten with plain SHA-256 links, even with the keying mark removed',
    async () => {
      const { db } = ledgerCopy('audit-rewrite')
      asAttacker(db, (l) => {
        const rows = l.prepare('SELECT * FROM audit ORDER BY seq').all() as AuditRow[]
        const update = l.prepare('UPDATE audit SET prev_hash = ?, hash = ? WHERE seq = ?')
        let prev = GENESIS_HASH
        for (const r of rows) {
          const hash = entryHash(prev, r)
          update.run(prev, hash, r.seq)
          prev = hash
        }
      })
      const v = await carats(db, 'audit', 'verify')
      expect(v.code, v.text).toBe(1)
      // the keyed chain is then gone too, as far as the file says: the checkpoint still knows
      withDb(db, (l) => {
        l.exec('DROP TRIGGER ledger_meta_no_delete')
        l.prepare("DELETE FROM ledger_meta WHERE name = 'audit_keyed_from'").run()
      })
      const unmarked = await carats(db, 'audit', 'verify')
      expect(unmarked.code, unmarked.text).toBe(1)
    },
    T,
  )

  it(
    'sees the ledger file replaced by an older copy of itself',
    async () => {
      const { dir, db } = ledgerCopy('audit-rollback')
      const older = join(dir, 'older.db')
      copyFileSync(db, older)
      expect((await carats(db, 'ticket', 'show', UNSOLD, '--reason', 'support case 1234')).code).toBe(0)
      expect((await carats(db, 'emission', 'close', '1')).code).toBe(0)
      copyFileSync(older, db)
      const v = await carats(db, 'audit', 'verify')
      expect(v.code).toBe(1)
      expect(v.text).toMatch(/rolled back/)
    },
    T,
  )

  it(
    'sees a missing checkpoint, does not remake it silently, and starts afresh only on a reanchor with a reason',
    async () => {
      const { db } = ledgerCopy('audit-missing')
      unlinkSync(checkpointOf(db))
      const v = await carats(db, 'audit', 'verify')
      expect(v.code).toBe(1)
      expect(v.text).toMatch(/missing/)
      // an action that writes an entry does not bring the checkpoint back
      expect((await carats(db, 'ticket', 'show', UNSOLD, '--reason', 'support case 1234')).code).toBe(0)
      expect(existsSync(checkpointOf(db))).toBe(false)
      expect((await carats(db, 'audit', 'verify')).code).toBe(1)

      const reanchors = () =>
        withDb(
          db,
          (l) =>
            l
              .prepare("SELECT details FROM audit WHERE action = 'audit.reanchored' ORDER BY seq")
              .pluck()
              .all() as string[],
        )
      const earlier = reanchors().length
      const noReason = await carats(db, 'audit', 'reanchor')
      expect(noReason.code).not.toBe(0)
      expect(existsSync(checkpointOf(db))).toBe(false)
      expect(reanchors()).toHaveLength(earlier)

      const reason = 'checkpoint lost with the old file server, ticket IT-2291'
      const re = await carats(db, 'audit', 'reanchor', '--reason', reason)
      expect(re.code, re.text).toBe(0)
      const all = reanchors()
      expect(all).toHaveLength(earlier + 1)
      expect(JSON.parse(all.at(-1)!)).toMatchObject({ reason, previous: 'missing' })
      expect(existsSync(checkpointOf(db))).toBe(true)
      const after = await carats(db, 'audit', 'verify')
      expect(after.code, after.text).toBe(0)
    },
    T,
  )

  it(
    'exports the log as JSON lines: a head with the checkpoint, then every entry',
    async () => {
      const { dir, db } = ledgerCopy('audit-export')
      const out = join(dir, 'audit.jsonl')
      const r = await carats(db, 'audit', 'export', '--out', out)
      expect(r.code, r.text).toBe(0)
      const lines = readFileSync(out, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
      const rows = withDb(db, (l) => l.prepare('SELECT * FROM audit ORDER BY seq').all() as AuditRow[])
      const [head, ...entries] = lines
      expect(head).toMatchObject({
        format: 'carats-audit-export/1',
        checkpoint: { entries: rows.length, head: rows.at(-1)!.hash, mac: expect.stringMatching(/^[0-9a-f]{64}$/) },
      })
      expect(entries).toHaveLength(rows.length)
      expect(entries.map((e) => [e.seq, e.action, e.hash])).toEqual(rows.map((e) => [e.seq, e.action, e.hash]))
      // never over an existing file
      const before = sha(out)
      const again = await carats(db, 'audit', 'export', '--out', out)
      expect(again.code).not.toBe(0)
      expect(sha(out)).toBe(before)
    },
    T,
  )
})

describe('the key file', () => {
  it(
    'missing: what needs the key is refused with where to restore it from, no key is made, and the rest works',
    async () => {
      const { db } = ledgerCopy('key-missing')
      unlinkSync(keyOf(db))
      const entries = auditCount(db)
      const runs = await Promise.all([
        carats(db, 'emission', 'create', '--blocks', '1'),
        carats(db, 'ticket', 'show', soldSerial),
        carats(db, 'ledger', 'check'),
      ])
      for (const r of runs) {
        expect(r.code).not.toBe(0)
        expect(r.err).toContain(`key file ${keyOf(db)} is missing`)
        expect(r.err).toMatch(/restore that file from the backup/)
      }
      expect(existsSync(keyOf(db))).toBe(false)
      const list = await carats(db, '--json', 'emission', 'list')
      expect(list.code, list.text).toBe(0)
      expect((JSON.parse(list.out) as unknown[]).length).toBe(baseEmissions)
      expect(existsSync(keyOf(db))).toBe(false)
      expect(auditCount(db)).toBe(entries)
    },
    T,
  )

  it(
    'wrong: refused as the wrong key, and a verification does not fail the blocks',
    async () => {
      const { db } = ledgerCopy('key-wrong')
      const other = randomBytes(32).toString('hex') + '\n'
      unlinkSync(keyOf(db))
      writeFileSync(keyOf(db), other, { mode: 0o600 })
      const runs = await Promise.all([
        carats(db, 'ticket', 'show', soldSerial),
        carats(db, 'ledger', 'check'),
        carats(db, 'emission', 'verify', String(E)),
      ])
      for (const r of runs) {
        expect(r.code).not.toBe(0)
        expect(r.err).toMatch(/wrong key/)
      }
      const state = withDb(db, (l) => ({
        blocks: l.prepare('SELECT status FROM blocks ORDER BY emission, block').pluck().all(),
        emission: l.prepare('SELECT status FROM emissions WHERE emission = ?').pluck().get(E),
      }))
      expect(state.blocks).toEqual(Array(baseEmissions).fill('verified'))
      expect(state.emission).toBe('open')
      expect(readFileSync(keyOf(db), 'utf8')).toBe(other)
    },
    T,
  )

  it(
    'readable by others: refused until chmod 600',
    async () => {
      const { db } = ledgerCopy('key-mode')
      chmodSync(keyOf(db), 0o644)
      const r = await carats(db, 'ticket', 'show', soldSerial)
      expect(r.code).not.toBe(0)
      expect(r.err).toMatch(/chmod 600/)
      chmodSync(keyOf(db), 0o600)
      expect((await carats(db, 'ticket', 'show', soldSerial)).code).toBe(0)
    },
    T,
  )
})

describe('a damaged ledger file', () => {
  const commands = (dir: string): string[][] => [
    ['emission', 'list'],
    ['audit', 'verify'],
    ['ledger', 'check'],
    ['backup', join(dir, 'copy.db')],
    ['simulate', '--emission', String(E), '--sales', '10'],
    ['audit', 'export', '--out', join(dir, 'audit.jsonl')],
    ['emission', 'create', '--blocks', '1'],
  ]

  it(
    'emptied (0 bytes): every command refuses, and the file stays empty',
    async () => {
      const { dir, db } = ledgerCopy('empty')
      truncateSync(db, 0)
      const runs = await Promise.all(commands(dir).map((c) => carats(db, ...c)))
      runs.forEach((r, i) => {
        expect(r.code, commands(dir)[i].join(' ')).not.toBe(0)
        expect(r.err, commands(dir)[i].join(' ')).toMatch(/is empty \(0 bytes\)/)
      })
      expect(statSync(db).size).toBe(0)
      expect(existsSync(join(dir, 'copy.db'))).toBe(false)
      expect(existsSync(join(dir, 'audit.jsonl'))).toBe(false)
    },
    T,
  )

  it(
    'truncated (its last 100 bytes cut): every command refuses, and the file is left as it is',
    async () => {
      const { dir, db } = ledgerCopy('truncated')
      const size = statSync(db).size
      truncateSync(db, size - 100)
      const cut = sha(db)
      const runs = await Promise.all(commands(dir).map((c) => carats(db, ...c)))
      runs.forEach((r, i) => {
        expect(r.code, commands(dir)[i].join(' ')).not.toBe(0)
        expect(r.err, commands(dir)[i].join(' ')).toMatch(/truncated/)
      })
      expect(sha(db)).toBe(cut)
      expect(existsSync(join(dir, 'copy.db'))).toBe(false)
    },
    T,
  )

  // Found by this test and fixed: restore checks the backup itself (empty, truncated) before copying or moving anything, and leaves no temp file.
  it(
    'emptied, given to restore as the backup: refused as empty, nothing left behind',
    async () => {
      const { dir, db } = ledgerCopy('restore-empty')
      const empty = join(dir, 'empty.db')
      writeFileSync(empty, '')
      copyFileSync(keyOf(db), keyOf(empty))
      chmodSync(keyOf(empty), 0o600)
      const before = [db, keyOf(db), checkpointOf(db)].map(sha)
      const r = await carats(db, 'restore', empty, '--replace')
      expect(r.code).not.toBe(0)
      expect(r.err).toContain(empty)
      expect(r.err).toMatch(/is empty \(0 bytes\)/)
      expect([db, keyOf(db), checkpointOf(db)].map(sha)).toEqual(before)
      // nothing beside the ledger: no copy in progress, nothing moved aside
      expect(ledgerFiles(dir)).toEqual(['ledger.db', 'ledger.db.audit-checkpoint', 'ledger.db.key'])
    },
    T,
  )

  // Found by this test and fixed: restore checks the backup itself (empty, truncated) before copying or moving anything, and leaves no temp file.
  it(
    'truncated, given to restore as the backup: refused as truncated, the ledger in place untouched',
    async () => {
      const { dir, db } = ledgerCopy('restore-truncated')
      const cut = join(dir, 'cut.db')
      expect((await carats(db, 'backup', cut)).code).toBe(0)
      truncateSync(cut, statSync(cut).size - 100)
      const before = [db, keyOf(db), checkpointOf(db)].map(sha)
      const r = await carats(db, 'restore', cut, '--replace')
      expect(r.code).not.toBe(0)
      expect(r.err).toContain(cut)
      expect(r.err).toMatch(/truncated/)
      expect([db, keyOf(db), checkpointOf(db)].map(sha)).toEqual(before)
      // nothing beside the ledger: no copy in progress, nothing moved aside
      expect(ledgerFiles(dir)).toEqual(['ledger.db', 'ledger.db.audit-checkpoint', 'ledger.db.key'])
    },
    T,
  )
})

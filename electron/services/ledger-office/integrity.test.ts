/**
 * The whole ledger check, backup and restore, on the engine of the run (SQLite, or PostgreSQL in
 * the postgres project): a sound ledger passes and says which engine was checked; a sale's prize
 * changed behind the services' back (through psql on PostgreSQL) is found; a backup is checked
 * before it is called good and restores into a ledger that passes; a restore refuses a database
 * that holds tables and a backup of the other engine, touching nothing.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { smallDefinition } from '../../../test/support/game-fixtures'
import { testEngine, testLedgerLocation, type TestLedgerLocation } from '../../../test/support/ledger-engine'
import { openLedger } from '../../ledger/db'
import { openLedgerKey } from '../../ledger/keystore'
import { createAuditService } from '../audit'
import { createCatalog } from '../catalog'
import { backupLedger, checkLedger, restoreFiles } from './integrity'
import { openLedgerFixture, TEST_ACTOR, type LedgerFixture } from '../../../test/support/simulator-world'

const NOW = Date.parse('2025-03-20T15:00:00Z')
const clock = () => new Date(NOW)
const pg = testEngine() === 'postgres'
const open: { close(): void }[] = []
afterEach(() => {
  while (open.length) open.pop()!.close()
})

async function soldLedger(): Promise<LedgerFixture> {
  const f = openLedgerFixture({ definition: smallDefinition(), clock })
  open.push(f)
  const e = await f.openEmission({ blocks: 1, startsOn: '2025-03-01' })
  await f.simulator.run(TEST_ACTOR, { emission: e, sales: 3000, seed: 3, players: 50 })
  return f
}

const deps = (f: LedgerFixture) => ({ db: f.db, dbPath: f.path, catalog: f.catalog, audit: f.audit, clock: f.clock })
const keyDeps = (f: LedgerFixture) => ({ ...deps(f), keys: openLedgerKey(f.db, f.path, { keyFile: f.keyFile }) })

/** SQL behind the services' back: psql on PostgreSQL (as a DBA would), the connection on SQLite. */
function tamper(f: LedgerFixture, sql: string): void {
  if (pg) execFileSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', f.path, '-c', sql])
  else f.db.exec(sql)
}

/** A ledger at `l` opened for its check, as the command line opens it. */
function openAt(l: TestLedgerLocation, keyFile: string | undefined) {
  const db = openLedger(l.location)
  const keys = openLedgerKey(db, l.location, { keyFile })
  const audit = createAuditService({ db, clock, keys, dbPath: l.location, keyFile })
  open.push(db)
  return { db, dbPath: l.location, catalog: createCatalog({ db, keys }), audit, clock }
}

function withKeyFileEnv<T>(file: string | undefined, fn: () => T): T {
  const before = process.env.CARATS_KEY_FILE
  if (file) process.env.CARATS_KEY_FILE = file
  try {
    return fn()
  } finally {
    if (before === undefined) delete process.env.CARATS_KEY_FILE
    else process.env.CARATS_KEY_FILE = before
  }
}

describe(`the ledger check on ${testEngine()}`, () => {
  it('passes a sound ledger and says which engine it checked, and what', async () => {
    const f = await soldLedger()
    const r = await checkLedger(deps(f))
    expect(r.integrity.engine).toBe(testEngine())
    expect(r.integrity.ok).toBe(true)
    if (pg) {
      expect(r.integrity.messages[0]).toMatch(/schema version \d+; the schema's \d+ tables, \d+ indexes, \d+ triggers/)
      expect(r.integrity.messages[1]).toMatch(/amcheck/)
    } else expect(r.integrity.messages).toEqual(['ok'])
    expect(r).toMatchObject({ ok: true, data: { ok: true, salesRows: 3000, unitsRederived: 3000 } })
  })

  it("finds a sale whose prize was changed behind the services' back", async () => {
    const f = await soldLedger()
    const key = f.db.prepare('SELECT min(unit_key) FROM sales WHERE prize_cents = 0').pluck().get() as number
    tamper(f, `UPDATE sales SET prize_cents = 500000 WHERE unit_key = ${key}`)
    const r = await checkLedger(deps(f))
    expect(r.ok).toBe(false)
    expect(r.data.problems).toContainEqual(
      expect.objectContaining({ kind: 'PRIZE_MISMATCH', field: 'prize_cents', stored: 500000, recomputed: 0 }),
    )
  })

  it.runIf(pg)(
    'names a missing index and a disabled trigger of the schema, and checks the indexes with amcheck when it is installed',
    async () => {
      const f = await soldLedger()
      tamper(
        f,
        'DROP INDEX players_by_name_nocase; ALTER TABLE audit DISABLE TRIGGER audit_no_update; CREATE EXTENSION IF NOT EXISTS amcheck',
      )
      const r = await checkLedger(deps(f))
      expect(r.ok).toBe(false)
      expect(r.integrity).toMatchObject({ engine: 'postgres', ok: false })
      expect(r.integrity.messages).toContainEqual(expect.stringMatching(/index players_by_name_nocase is missing/))
      expect(r.integrity.messages).toContainEqual(expect.stringMatching(/trigger audit_no_update is disabled/))
      tamper(
        f,
        'CREATE INDEX players_by_name_nocase ON players (name COLLATE nocase); ALTER TABLE audit ENABLE TRIGGER audit_no_update',
      )
      const healed = await checkLedger(deps(f))
      expect(healed.integrity.ok).toBe(true)
      expect(healed.integrity.messages[1]).toMatch(/amcheck: \d+ B-tree indexes checked/)
    },
  )
})

describe(`backup and restore on ${testEngine()}`, () => {
  it('writes a backup with its key and checkpoint, checked, that restores into a ledger that passes', async () => {
    const f = await soldLedger()
    const dest = join(f.dir, 'backup.carats')
    const b = await backupLedger(keyDeps(f), 'tester', dest)
    expect(b.check.ok).toBe(true)
    expect(b.check.integrity.engine).toBe(testEngine())
    expect(b.check.data.salesRows).toBe(3000)
    for (const file of [b.file, b.keyFile, b.checkpointFile]) expect(existsSync(file)).toBe(true)
    expect(b).toMatchObject({ keyFile: `${dest}.key`, checkpointFile: `${dest}.audit-checkpoint` })
    const target = testLedgerLocation(f.dir, 'restored')
    withKeyFileEnv(target.keyFile, () => restoreFiles({ backup: dest, target: target.location, clock }))
    const r = await checkLedger(openAt(target, target.keyFile))
    expect(r).toMatchObject({ ok: true, data: { salesRows: 3000 } })
    expect(r.audit.checkpoint.status).toBe('ok')
  })

  it.runIf(pg)('refuses to restore into a database that holds tables, and touches nothing', async () => {
    const f = await soldLedger()
    const dest = join(f.dir, 'backup.carats')
    await backupLedger(keyDeps(f), 'tester', dest)
    const before = f.db.prepare('SELECT count(*) FROM audit').pluck().get()
    const again = () => withKeyFileEnv(f.keyFile, () => restoreFiles({ backup: dest, target: f.path, clock }))
    expect(again).toThrow(
      /holds \d+ tables: a team ledger is restored into an EMPTY database only \(nothing was touched\)/,
    )
    expect(f.db.prepare('SELECT count(*) FROM audit').pluck().get()).toBe(before)
  })

  it.runIf(pg)('refuses clearly when pg_dump is not installed', async () => {
    const f = await soldLedger()
    const path = process.env.PATH
    process.env.PATH = join(f.dir, 'no-tools')
    try {
      await expect(backupLedger(keyDeps(f), 'tester', join(f.dir, 'b.carats'))).rejects.toThrow(
        /pg_dump is not installed.*postgresql-client/,
      )
    } finally {
      process.env.PATH = path
    }
  })

  it('refuses a backup of the other engine, saying which it is', async () => {
    const f = await soldLedger()
    const other = join(f.dir, 'other.backup')
    writeFileSync(other, pg ? 'SQLite format 3\0rest of a file' : 'PGDMP\x01\x0e\x00rest of an archive')
    writeFileSync(`${other}.key`, `${'ab'.repeat(32)}\n`)
    const target = testLedgerLocation(f.dir, 'target')
    const restore = () =>
      withKeyFileEnv(target.keyFile, () => restoreFiles({ backup: other, target: target.location, clock }))
    expect(restore).toThrow(
      pg
        ? /is a backup of a SQLite ledger file: restore it into a file/
        : /is a backup of a team ledger \(pg_dump\): restore it into an empty PostgreSQL database/,
    )
    if (!pg) expect(existsSync(target.location)).toBe(false)
  })
})

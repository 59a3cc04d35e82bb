import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { parse } from 'pg-connection-string'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { openLedger, type Db } from '../db'
import { LATEST_VERSION } from './steps.sqlite'
import { APPLICATION_ID } from './migration'
import { splitUnitKey, unitKey } from '../unit-key'
import { PG_ADVISORY_LOCK_KEY, PG_MIGRATIONS, PG_SCHEMA_VERSION } from './steps.pg'
import { ALLOWED, FIXTURE, REFUSALS, type Refusal } from './refusals'
import { FOREIGN_KEY_TRIGGERS } from './v10.pg'
import { PG_ONLY_TABLES, PG_ONLY_TRIGGERS } from './v12.pg'
import { PG_ROWID_LISTED } from './v15.pg'

const SERVER = 'postgresql:///postgres?host=/var/run/postgresql'

/** A client for a URL; with no user in it, the system user's name, as psql (libpq) takes it. */
function clientOf(url: string): pg.Client {
  const { user, ...rest } = parse(url)
  return new pg.Client({
    ...(rest as pg.ClientConfig),
    user: user || process.env.PGUSER || userInfo().username,
    connectionTimeoutMillis: 5000,
  })
}

async function answers(url: string): Promise<boolean> {
  const client = clientOf(url)
  try {
    await client.connect()
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

const server = await answers(SERVER)
const WHY = server ? '' : ` (skipped: no PostgreSQL server answers at ${SERVER}; start one to run these tests)`
if (!server) console.warn(`schema/engines.test.ts${WHY}`)

describe('the PostgreSQL schema version', () => {
  it("is the SQLite schema's, and its last step brings a database there", () => {
    expect(PG_SCHEMA_VERSION).toBe(LATEST_VERSION)
    expect(PG_MIGRATIONS[PG_MIGRATIONS.length - 1].version).toBe(LATEST_VERSION)
    expect(PG_MIGRATIONS.map((m) => m.version)).toEqual([...PG_MIGRATIONS.map((m) => m.version)].sort((a, b) => a - b))
    for (const m of PG_MIGRATIONS) expect(m.sql).toContain(`UPDATE ledger_identity SET schema_version = ${m.version};`)
  })

  it('locks the ledger with a key that PostgreSQL takes as one bigint', () => {
    expect(Number.isSafeInteger(PG_ADVISORY_LOCK_KEY)).toBe(true)
    expect(PG_ADVISORY_LOCK_KEY).toBe(0x43415254)
  })
})

/** `?` → `$1…$n` (the statements here hold no `?` in their literals). */
function numbered(sql: string): string {
  let n = 0
  return sql.replace(/\?/g, () => `$${++n}`)
}

interface PgError {
  code?: string
  constraint?: string
  message: string
}

describe.skipIf(!server)(`the PostgreSQL schema against the SQLite one${WHY}`, () => {
  const name = `carats_pgschema_${randomBytes(6).toString('hex')}`
  let admin: pg.Client
  let client: pg.Client
  let lite: Db
  let dir: string

  const q = async <T = Record<string, unknown>>(sql: string, params?: unknown[]) =>
    (await client.query(numbered(sql), params)).rows as T[]

  beforeAll(async () => {
    admin = clientOf(SERVER)
    await admin.connect()
    await admin.query(`CREATE DATABASE ${name}`)
    client = clientOf(SERVER.replace('/postgres?', `/${name}?`))
    await client.connect()
    for (const m of PG_MIGRATIONS)
      await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${PG_ADVISORY_LOCK_KEY}); ${m.sql}; COMMIT`)
    dir = mkdtempSync(join(tmpdir(), 'pgschema-'))
    lite = openLedger(join(dir, 'ledger.db'))
    for (const f of FIXTURE) {
      lite.prepare(f.sql).run(...(f.params ?? []))
      await q(f.sql, f.params)
    }
  })

  afterAll(async () => {
    lite?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
    await client?.end()
    await admin?.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin?.end()
  })

  const sqliteNames = (type: string) =>
    lite
      .prepare(
        "SELECT name, tbl_name AS tbl FROM sqlite_master WHERE type = ? AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all(type) as { name: string; tbl: string }[]

  it('has every table of the SQLite ledger, ledger_identity and its own player_deltas, and no other', async () => {
    const tables = await q<{ name: string }>(
      'SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1',
    )
    const expected = [...sqliteNames('table').map((t) => t.name), 'ledger_identity', ...PG_ONLY_TABLES].sort()
    expect(tables.map((t) => t.name)).toEqual(expected)
  })

  it('has every view of the SQLite ledger, with the same columns', async () => {
    const views = await q<{ name: string }>(
      'SELECT viewname AS name FROM pg_views WHERE schemaname = current_schema() ORDER BY 1',
    )
    expect(views.map((v) => v.name)).toEqual(sqliteNames('view').map((v) => v.name))
    for (const { name } of sqliteNames('view')) {
      const liteCols = (lite.pragma(`table_info(${name})`) as { name: string }[]).map((c) => c.name)
      const pgCols = await q<{ name: string }>(
        'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position',
        [name],
      )
      expect({ name, columns: pgCols.map((c) => c.name) }).toEqual({ name, columns: liteCols })
    }
  })

  it("has each table's columns in the same order, with the corresponding type, nullability, default, generation and collation", async () => {
    const TYPES: Record<string, string> = { INTEGER: 'bigint', TEXT: 'text', BLOB: 'bytea', REAL: 'double precision' }
    for (const { name: table } of sqliteNames('table')) {
      type Info = { name: string; type: string; notnull: number; dflt_value: string | null; pk: number; hidden: number }
      const liteCols = (lite.pragma(`table_xinfo(${table})`) as Info[]).map((c) => ({
        name: c.name,
        type: TYPES[c.type] ?? `unknown SQLite type ${c.type}`,
        notNull: c.notnull === 1 || c.pk > 0,
        default: c.dflt_value,
        generated: c.hidden >= 2,
      }))
      const createSql = lite.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(table) as string
      const liteColls = liteCols.map((c) =>
        c.type !== 'text'
          ? null
          : new RegExp(`\\b${c.name}\\s+TEXT[^,]*COLLATE NOCASE`).test(createSql)
            ? 'nocase'
            : 'C',
      )
      const pgCols = await q<{
        name: string
        type: string
        nullable: string
        dflt: string | null
        generated: string
        coll: string | null
      }>(
        `SELECT column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS dflt, is_generated AS generated,
           collation_name AS coll
         FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`,
        [table],
      )
      const asLite = pgCols.map((c) => ({
        name: c.name,
        type: c.type,
        notNull: c.nullable === 'NO',
        default: c.dflt === null ? null : c.dflt.replace(/::[a-z ]+$/, ''),
        generated: c.generated === 'ALWAYS',
      }))
      expect({ table, columns: asLite }).toEqual({ table, columns: liteCols })
      expect({ table, collations: pgCols.map((c) => c.coll) }).toEqual({ table, collations: liteColls })
    }
  })

  it('has every index of the SQLite ledger, on the same table, as unique and as partial, with the same collations', async () => {
    const pgIndexes = await q<{
      name: string
      tbl: string
      unique: boolean
      partial: boolean
      colls: (string | null)[]
    }>(`
      SELECT c.relname AS name, t.relname AS tbl, i.indisunique AS unique, i.indpred IS NOT NULL AS partial,
        ARRAY(SELECT coalesce(k.collname::text, 'C') FROM unnest(i.indcollation::oid[]) WITH ORDINALITY AS u(coll, ord)
              LEFT JOIN pg_collation k ON k.oid = u.coll ORDER BY u.ord) AS colls
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
      WHERE t.relnamespace = current_schema()::regnamespace`)
    const byName = new Map(pgIndexes.map((x) => [x.name, x]))
    for (const { name: index, tbl } of sqliteNames('index')) {
      const list = lite.pragma(`index_list(${tbl})`) as { name: string; unique: number; partial: number }[]
      const info = list.find((x) => x.name === index)!
      const keys = (lite.pragma(`index_xinfo(${index})`) as { key: number; coll: string }[]).filter((k) => k.key === 1)
      const colls = keys.map((k) => (k.coll === 'NOCASE' ? 'nocase' : 'C'))
      if ((PG_ROWID_LISTED as readonly string[]).includes(index)) colls.push('C')
      const found = byName.get(index)
      expect({ index, ...found }).toMatchObject({
        index,
        tbl,
        unique: info.unique === 1,
        partial: info.partial === 1,
        colls,
      })
    }
  })

  it('has every trigger of the SQLite ledger on the same table, and a TRUNCATE trigger where DELETE is refused', async () => {
    const pgTriggers = await q<{ name: string; tbl: string }>(
      'SELECT tgname AS name, tgrelid::regclass::text AS tbl FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1',
    )
    const liteTriggers = sqliteNames('trigger').map(({ name, tbl }) => ({ name, tbl }))
    const truncates = liteTriggers
      .filter((t) => t.name.endsWith('_no_delete'))
      .map((t) => ({ name: t.name.replace(/_no_delete$/, '_no_truncate'), tbl: t.tbl }))
    const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : 1)
    const foreignKey = FOREIGN_KEY_TRIGGERS.map((name) => ({
      name,
      tbl: name.startsWith('players') ? 'players' : 'sales',
    }))
    const deltas = PG_ONLY_TRIGGERS.map((name) => ({ name, tbl: 'player_deltas' }))
    expect(pgTriggers).toEqual([...liteTriggers, ...truncates, ...foreignKey, ...deltas].sort(byName))
  })

  it('has one identity row (application id "CART", schema 10, no write yet) and a random 32-hex ledger id, as SQLite has', async () => {
    const identity = await q('SELECT application_id, schema_version, writes FROM ledger_identity')
    expect(identity).toEqual([
      { application_id: String(APPLICATION_ID), schema_version: String(PG_SCHEMA_VERSION), writes: '0' },
    ])
    await expect(client.query('INSERT INTO ledger_identity VALUES (1, 1)')).rejects.toMatchObject({ code: '23505' })
    const liteId = lite.prepare("SELECT value FROM ledger_meta WHERE name = 'ledger_id'").pluck().get() as string
    const [{ value: pgId }] = await q<{ value: string }>("SELECT value FROM ledger_meta WHERE name = 'ledger_id'")
    expect(liteId).toMatch(/^[0-9a-f]{32}$/)
    expect(pgId).toMatch(/^[0-9a-f]{32}$/)
  })

  it("computes a sale's emission, block and unit from its key as SQLite does", async () => {
    const key = unitKey(9999, 999, 9_999_999)
    const insert = `INSERT INTO sales (unit_key, player_id, sold_at, stake_cents, prize_cents) VALUES (${key}, 1, 1, 100, 0)`
    const select = `SELECT emission, block, unit FROM sales WHERE unit_key = ${key}`
    lite.exec('SAVEPOINT g')
    lite.exec(insert)
    const fromLite = lite.prepare(select).get()
    lite.exec('ROLLBACK TO g; RELEASE g')
    await client.query('BEGIN')
    await client.query(insert)
    const [row] = await q<Record<string, string>>(select)
    await client.query('ROLLBACK')
    expect(fromLite).toEqual(splitUnitKey(key))
    expect(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]))).toEqual(splitUnitKey(key))
  })

  it('compares and orders NOCASE as docs/ledger.md says: as SQLite for ASCII letters, as a language beyond', async () => {
    const pairs = [
      ['Alice', 'aLICE'],
      ['a_b', 'A_B'],
      ['É', 'é'],
      ['ab', 'a\u00ADb'],
      ['e', 'é'],
    ]
    const liteEq = pairs.map(([a, b]) => lite.prepare('SELECT ? = ? COLLATE NOCASE').pluck().get(a, b))
    const pgEq = await Promise.all(
      pairs.map(
        async ([a, b]) => (await q<{ eq: boolean }>('SELECT $1::text = $2::text COLLATE nocase AS eq', [a, b]))[0].eq,
      ),
    )
    expect(liteEq).toEqual([1, 1, 0, 0, 0])
    expect(pgEq).toEqual([true, true, true, true, false])
    const ids = ['player_2', 'player1', 'Player-3', 'éa', 'eb']
    const values = ids.map((id) => `('${id}')`).join(', ')
    const liteOrder = lite
      .prepare(`SELECT column1 FROM (VALUES ${values}) ORDER BY column1 COLLATE NOCASE`)
      .pluck()
      .all()
    const pgOrder = (await q<{ x: string }>(`SELECT x FROM (VALUES ${values}) v(x) ORDER BY x COLLATE nocase`)).map(
      (r) => r.x,
    )
    expect(liteOrder).toEqual(['eb', 'Player-3', 'player1', 'player_2', 'éa'])
    expect(pgOrder).toEqual(['éa', 'eb', 'player_2', 'Player-3', 'player1'])
    const prefix = await q<{ x: string }>(
      `SELECT x FROM (VALUES ${values}) v(x) WHERE x COLLATE nocase >= $1 AND x COLLATE nocase < $2 ORDER BY x COLLATE "C"`,
      ['PLAYER', 'PLAYER\u{10FFFF}'],
    )
    expect(prefix.map((r) => r.x)).toEqual(['Player-3', 'player1', 'player_2'])
    await expect(client.query("SELECT count(*) FROM users WHERE name LIKE 'A%'")).rejects.toThrow(
      /nondeterministic collations are not supported for LIKE/,
    )
  })

  /** What each engine says to a statement, run in a transaction rolled back afterwards. */
  function liteSays(sql: string): string {
    lite.exec('SAVEPOINT r')
    try {
      lite.prepare(sql).run()
      return 'accepted'
    } catch (e) {
      return (e as Error).message
    } finally {
      lite.exec('ROLLBACK TO r; RELEASE r')
    }
  }

  async function pgSays(sql: string): Promise<string> {
    await client.query('BEGIN')
    try {
      await client.query(sql)
      return 'accepted'
    } catch (e) {
      const err = e as PgError
      return `${err.code}: ${err.code === '23000' ? err.message : err.constraint}`
    } finally {
      await client.query('ROLLBACK')
    }
  }

  const pgExpects = (r: Refusal) => {
    const code = { trigger: '23000', check: '23514', unique: '23505', 'foreign key': '23503' }[r.kind]
    return `${code}: ${r.kind === 'trigger' ? r.message : r.rule}`
  }

  it('refuses, for each trigger, CHECK and key, the statement that SQLite refuses, with the same trigger message', async () => {
    const said = []
    for (const r of REFUSALS) {
      said.push({
        rule: r.rule,
        sql: r.sql,
        sqlite: r.sqlite === null ? null : liteSays(r.sql),
        pg: await pgSays(r.sql),
      })
    }
    expect(said).toEqual(REFUSALS.map((r) => ({ rule: r.rule, sql: r.sql, sqlite: r.sqlite, pg: pgExpects(r) })))
  })

  it('tries every trigger and every CHECK of both schemas', async () => {
    const checks = await q<{ name: string }>(`SELECT conname AS name FROM pg_constraint
      WHERE contype = 'c' AND connamespace = current_schema()::regnamespace AND conrelid <> 0 ORDER BY 1`)
    const triggers = await q<{ name: string }>(
      'SELECT tgname AS name FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1',
    )
    const tried = (kind: Refusal['kind']) =>
      [...new Set(REFUSALS.filter((r) => r.kind === kind).map((r) => r.rule))].sort()
    expect(tried('check')).toEqual(checks.map((c) => c.name))
    const own = new Set<string>([...FOREIGN_KEY_TRIGGERS, ...PG_ONLY_TRIGGERS])
    expect(tried('trigger')).toEqual(triggers.map((t) => t.name).filter((n) => !own.has(n)))
    const liteSql = lite
      .prepare("SELECT group_concat(sql, ' ') FROM sqlite_master WHERE type = 'table'")
      .pluck()
      .get() as string
    expect(liteSql.match(/\bCHECK \(/g)).toHaveLength(checks.length)
  })

  it('lets through, on both engines, what the rules allow', async () => {
    const said = []
    for (const sql of ALLOWED) {
      const sqlite = liteSays(sql) === 'accepted' ? (lite.prepare(sql).run(), 'accepted') : liteSays(sql)
      const pgAnswer = await client.query(sql).then(
        () => 'accepted',
        (e: Error) => e.message,
      )
      said.push({ sql, sqlite, pg: pgAnswer })
    }
    expect(said).toEqual(ALLOWED.map((sql) => ({ sql, sqlite: 'accepted', pg: 'accepted' })))
  })
})

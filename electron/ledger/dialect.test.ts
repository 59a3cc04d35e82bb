import Database from 'better-sqlite3'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Db } from './db'
import { engineOf, indexedBy, jsonValues, NO_LIMIT } from './dialect'

const postgres = { engine: 'postgres' } as unknown as Db
let db: Database.Database | null = null
afterEach(() => db?.close())

describe('the dialect', () => {
  it('tells a PostgreSQL ledger from a SQLite one', () => {
    db = new Database(':memory:')
    expect(engineOf(db)).toBe('sqlite')
    expect(engineOf(postgres)).toBe('postgres')
  })

  it('reads a JSON array parameter as rows of text values on SQLite, and names the PostgreSQL function for it', () => {
    db = new Database(':memory:')
    const rows = db
      .prepare(`SELECT value FROM ${jsonValues(db)} ORDER BY value`)
      .pluck()
      .all(JSON.stringify(['b', 'a', 'c']))
    expect(rows).toEqual(['a', 'b', 'c'])
    expect(jsonValues(postgres)).toBe('json_array_elements_text(CAST(? AS json)) AS j(value)')
  })

  it('keeps every row past an OFFSET', () => {
    db = new Database(':memory:')
    const rows = db.prepare(`SELECT value FROM json_each('[1,2,3]') ORDER BY value ${NO_LIMIT} OFFSET ?`).pluck().all(1)
    expect(rows).toEqual([2, 3])
  })

  it('names an index to read from on SQLite only', () => {
    db = new Database(':memory:')
    expect(indexedBy(db, 'audit_by_at')).toBe('INDEXED BY audit_by_at')
    expect(indexedBy(db, null)).toBe('')
    expect(indexedBy(postgres, 'audit_by_at')).toBe('')
  })
})

/** SQLite-only forms that have a portable one (or a fragment above), as they would be written in a service. */
const SQLITE_ONLY: [RegExp, string][] = [
  [/INSERT OR (IGNORE|REPLACE)/i, 'INSERT … ON CONFLICT … DO NOTHING / DO UPDATE'],
  [/\.lastInsertRowid/, 'INSERT … RETURNING id'],
  [/group_concat\(/i, "string_agg(CAST(x AS TEXT), ',')"],
  [/\btotal\(/i, 'coalesce(sum(x), 0)'],
  [/\bifnull\(/i, 'coalesce'],
  [/json_each\(/i, 'jsonValues(db)'],
  [/LIMIT -1/i, 'NO_LIMIT'],
  [/\browid\b/i, 'a real column'],
  [/INDEXED BY/, 'indexedBy(db, index)'],
  [/\bAS [a-z]+[A-Z][A-Za-z]*\b/, 'a quoted alias (PostgreSQL folds AS camelCase to lower case)'],
  [/\b(min|max)\([^()]*(\([^()]*\))?[^()]*,[^()]*\)/, 'CASE (two-argument min/max)'],
]

/** The source files under `dir`, its domains' folders included; none of one engine (`*.pg.ts`, `*.sqlite.ts`). */
function sourcesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return sourcesOf(path)
    const own = /\.(pg|sqlite)\.ts$/.test(e.name)
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !own ? [path] : []
  })
}

/**
 * The files outside ledger/ that pick a half of one engine (`*.sqlite.ts` or `*.pg.ts`) by the
 * ledger's engine. A new one goes here, or better, behind one of these.
 */
const PICK_A_HALF = [
  'services/ledger-office/check-engines.ts',
  'services/ledger-office/integrity.ts',
  'services/sales/batch.ts',
]

describe("the services' SQL", () => {
  it('uses no SQLite-only form that has a portable one', () => {
    const root = join(__dirname, '..')
    const found: string[] = []
    for (const file of ['services', 'workers', 'cli'].flatMap((d) => sourcesOf(join(root, d)))) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          for (const [pattern, instead] of SQLITE_ONLY) {
            if (pattern.test(line) && !/Math\.(min|max)|z\.|\.(min|max)\(/.test(line))
              found.push(`${file.slice(root.length + 1)}:${i + 1}: use ${instead}`)
          }
        })
    }
    expect(found).toEqual([])
  })

  it('chooses an engine only in ledger/, in one engine’s files, and where the two halves are picked', () => {
    const root = join(__dirname, '..')
    const choosers = ['app', 'host', 'cli', 'workers', 'services', 'contract', 'main'].flatMap((d) =>
      sourcesOf(join(root, d))
        .filter((file) => /\bengineOf\(|['"]SQLITE_[A-Z_]+['"]/.test(readFileSync(file, 'utf8')))
        .map((file) => file.slice(root.length + 1)),
    )
    expect(choosers.sort()).toEqual(PICK_A_HALF)
  })
})

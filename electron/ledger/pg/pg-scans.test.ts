/**
 * The bulk reads of the team ledger (PgDb.numberColumns): every row of a large result as columns
 * of numbers, in order, read ahead by the connection's thread; and a connection that stays
 * usable whatever happens to a scan (left early, failed on the server, interrupted).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useScratchPg } from '../../../test/support/scratch-pg'
import { inlineIntegers, type PgDb } from './pg-db'

const scratch = useScratchPg(
  'carats_scans',
  `CREATE TABLE n (id BIGINT PRIMARY KEY, v BIGINT, maybe BIGINT);
  INSERT INTO n SELECT g, g * 1000003 - 4503599627370496, CASE WHEN g % 3 = 0 THEN NULL ELSE -g END
    FROM generate_series(1::bigint, 100000) g;`,
)
let db: PgDb
beforeAll(() => {
  db = scratch.db()
})

const SELECT = 'SELECT id, v, maybe FROM n WHERE id >= ? AND id < ? ORDER BY id'

/** Every row of a scan, NULL as null. */
function rowsOf(select: string, values: number[], width: number): (number | null)[][] {
  const rows: (number | null)[][] = []
  for (const cols of db.numberColumns(select, values, width)) {
    for (let i = 0; i < cols[0].length; i++) rows.push(cols.map((c) => (Number.isNaN(c[i]) ? null : c[i])))
  }
  return rows
}

describe('a bulk read of bigint columns', () => {
  it('gives every row in order, with the values and NULLs the rows hold', () => {
    const rows = rowsOf(SELECT, [1, 100001], 3)
    expect(rows).toEqual(db.prepare(SELECT).raw().all(1, 100001))
    expect(rows).toHaveLength(100000)
    expect(rows[2]).toEqual([3, 3 * 1000003 - 2 ** 52, null])
  })

  it('gives no chunk for a range with no rows', () => {
    expect(rowsOf(SELECT, [200000, 300000], 3)).toEqual([])
  })

  it('leaves the connection usable when its reader stops early', () => {
    for (const cols of db.numberColumns(SELECT, [1, 100001], 3)) {
      expect(cols[0][0]).toBe(1)
      break
    }
    expect(db.prepare('SELECT count(*) FROM n').pluck().get()).toBe(100000)
    const v = (id: number) => id * 1000003 - 2 ** 52
    expect(rowsOf(SELECT, [10, 13], 3)).toEqual([
      [10, v(10), -10],
      [11, v(11), -11],
      [12, v(12), null],
    ])
  })

  it('refuses to go on, rather than start again, once another statement has run in the middle of it', () => {
    const seen: number[] = []
    const read = () => {
      for (const cols of db.numberColumns(SELECT, [1, 100001], 3)) {
        seen.push(cols[0].length)
        if (seen.length === 1)
          expect(db.prepare('SELECT count(*) FROM n WHERE maybe IS NULL').pluck().get()).toBe(33333)
      }
    }
    expect(read).toThrow(/interrupted by another statement/)
    expect(seen).toHaveLength(1)
    expect(rowsOf(SELECT, [5, 6], 3)).toEqual([[5, 5 * 1000003 - 2 ** 52, -5]])
  })

  it("says the server's error in the middle of the rows, and the connection goes on", () => {
    const failing = 'SELECT id, 1 / (id - 70000) FROM n WHERE id >= ? ORDER BY id'
    expect(() => rowsOf(failing, [1], 2)).toThrow(/division by zero/)
    expect(db.prepare('SELECT count(*) FROM n').pluck().get()).toBe(100000)
  })

  it('refuses columns that are not bigint, and leaves the connection usable', () => {
    expect(() => rowsOf('SELECT id::int, v FROM n WHERE id < ?', [10], 2)).toThrow(/4 bytes, not a bigint's 8/)
    expect(() => rowsOf('SELECT id FROM n WHERE id < ?', [10], 2)).toThrow(/has 1 columns, not 2/)
    expect(rowsOf('SELECT id FROM n WHERE id < ?', [3], 1)).toEqual([[1], [2]])
  })

  it('reads the snapshot of the transaction it runs in', () => {
    const other = scratch.connect()
    try {
      db.exec('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY')
      expect(rowsOf('SELECT count(*) FROM n', [], 1)).toEqual([[100000]])
      other.prepare('INSERT INTO n (id, v) VALUES (?, ?)').run(100001, 1)
      expect(rowsOf('SELECT count(*) FROM n', [], 1)).toEqual([[100000]])
      db.exec('COMMIT')
      expect(rowsOf('SELECT count(*) FROM n', [], 1)).toEqual([[100001]])
    } finally {
      other.prepare('DELETE FROM n WHERE id = ?').run(100001)
      other.close()
    }
  })
})

describe('the values written into a COPY (which takes no parameters)', () => {
  it('are safe integers only, one per placeholder', () => {
    expect(inlineIntegers('SELECT ? WHERE ? < ?', [1, -2, 2 ** 53 - 1])).toBe('SELECT 1 WHERE -2 < 9007199254740991')
    expect(() => inlineIntegers('SELECT ?', ['1; DROP TABLE n' as unknown as number])).toThrow(/not a safe integer/)
    expect(() => inlineIntegers('SELECT ?', [1.5])).toThrow(/not a safe integer/)
    expect(() => inlineIntegers('SELECT ?', [Infinity])).toThrow(/not a safe integer/)
    expect(() => inlineIntegers('SELECT ?, ?', [1])).toThrow(/not a safe integer/)
    expect(() => inlineIntegers('SELECT ?', [1, 2])).toThrow(/1 placeholders for 2 values/)
  })
})

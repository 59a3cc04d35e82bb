import { describe, expect, it } from 'vitest'
import { toNumbered } from './placeholders'

describe('SQLite parameters as PostgreSQL ones', () => {
  it('numbers each ? in order', () => {
    expect(toNumbered('SELECT * FROM t WHERE a = ? AND b IN (?, ?)')).toBe(
      'SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)',
    )
  })
  it('leaves quoted text, quoted names and comments alone', () => {
    const sql = "SELECT '?', \"a?\", 'it''s ?' -- what?\n, ? /* ? */ FROM t WHERE x = ?"
    expect(toNumbered(sql)).toBe("SELECT '?', \"a?\", 'it''s ?' -- what?\n, $1 /* ? */ FROM t WHERE x = $2")
  })
})

/**
 * The team ledger's connections write at once (issue 30): no ledger-wide write lock, only the
 * locks of what two writers truly share (a row both change, a subject both lock: row-locks.ts).
 * One thread holds both connections, so a wait of the second behind the first could never end:
 * the second's lock wait is bounded (busy_timeout), and a wait too long is a refusal that says so.
 */
import { describe, expect, it } from 'vitest'
import { AppError } from '../../contract/errors'
import type { Db } from '../db'
import { lockSubject } from '../row-locks'
import { useScratchPg } from '../../../test/support/scratch-pg'

const open = useScratchPg(
  'carats_pgconc',
  'CREATE TABLE t (id BIGINT PRIMARY KEY, n BIGINT NOT NULL DEFAULT 0);',
).connect

/** A connection whose lock waits give up after `ms`. */
function impatient(ms = 300) {
  const db = open()
  db.pragma(`busy_timeout = ${ms}`)
  return db
}

const insert = (db: ReturnType<typeof open>, id: number) => db.prepare('INSERT INTO t (id) VALUES (?)').run(id)
const count = (db: ReturnType<typeof open>, ids: number[]) =>
  db
    .prepare(`SELECT count(*) FROM t WHERE id IN (${ids.join(', ')})`)
    .pluck()
    .get()

/** The refusal of a lock waited for too long: a conflict that says what to do. */
function busyRefusal(fn: () => unknown): AppError {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(AppError)
    return e as AppError
  }
  throw new Error('no refusal')
}

describe('writers on a team ledger', () => {
  it('write different rows at once: neither waits for the other', () => {
    const a = open()
    const b = impatient()
    a.transaction(() => {
      insert(a, 1)
      // b commits while a's transaction is open: it took no lock that a holds
      b.transaction(() => insert(b, 2)).immediate()
      expect(count(b, [1, 2])).toBe(1)
    }).immediate()
    expect(count(a, [1, 2])).toBe(2)
  })

  it('take turns on a row both change, and a wait too long is a refusal that says to try again, with nothing written', () => {
    const a = open()
    const b = impatient()
    insert(a, 10)
    const refusal = busyRefusal(() =>
      a
        .transaction(() => {
          a.prepare('UPDATE t SET n = n + 1 WHERE id = 10').run()
          b.transaction(() => {
            insert(b, 11)
            b.prepare('UPDATE t SET n = n + 1 WHERE id = 10').run()
          }).immediate()
        })
        .immediate(),
    )
    expect(refusal.code).toBe('CONFLICT')
    expect(refusal.extras.reason?.key).toBe('LEDGER_BUSY')
    expect(refusal.message).toMatch(/another workstation.*nothing of it was written.*try again/i)
    expect(count(a, [11])).toBe(0)
    expect(a.prepare('SELECT n FROM t WHERE id = 10').pluck().get()).toBe(0)
    expect(b.inTransaction).toBe(false)
  })

  it('take turns on a subject both lock (a rule over many rows), and only on it', () => {
    const a = open()
    const b = impatient()
    a.transaction(() => {
      lockSubject(a as unknown as Db, 'accounts')
      expect(() => b.transaction(() => lockSubject(b as unknown as Db, 'accounts')).immediate()).toThrow(
        /another workstation/,
      )
      b.transaction(() => lockSubject(b as unknown as Db, 'register')).immediate()
    }).immediate()
    b.transaction(() => lockSubject(b as unknown as Db, 'accounts')).immediate()
  })

  it('let a schema step (an exclusive transaction) wait for every writer, and every writer for it', () => {
    const a = open()
    const b = impatient()
    a.transaction(() => {
      insert(a, 20)
      expect(() => b.transaction(() => b.exec('SELECT 1')).exclusive()).toThrow(/another workstation/)
    }).immediate()
    a.transaction(() => {
      a.exec('SELECT 1')
      expect(() => b.transaction(() => insert(b, 21)).immediate()).toThrow(/another workstation/)
    }).exclusive()
    expect(count(a, [20, 21])).toBe(1)
  })
})

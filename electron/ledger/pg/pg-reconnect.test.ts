/**
 * A team ledger's connection heals (issue 30, item 3): after its server connection is ended (a
 * restart, a failover, pg_terminate_backend), the next call connects again by itself; a
 * transaction cut by the loss fails with a clear refusal and leaves nothing of it.
 */
import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { AppError } from '../../contract/errors'
import { useScratchPg } from '../../../test/support/scratch-pg'

const scratch = useScratchPg('carats_pgheal', 'CREATE TABLE t (id BIGINT PRIMARY KEY);')
const open = scratch.connect

/** Ends every server connection to the scratch database but the caller's own. */
function terminateOthers(via: ReturnType<typeof open>): number {
  return via
    .prepare(
      'SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    )
    .pluck()
    .get() as number
}

/** What `fn` throws, which must be an AppError. */
function refusal(fn: () => unknown): AppError {
  try {
    fn()
  } catch (e) {
    if (!(e instanceof AppError)) throw e
    return e
  }
  throw new Error('no refusal')
}

const backendPid = (db: ReturnType<typeof open>) => db.prepare('SELECT pg_backend_pid()').pluck().get() as number

describe('a team ledger connection after its server connection was ended', () => {
  it('connects again at the next call, and keeps its settings', () => {
    const db = open()
    db.pragma('busy_timeout = 1234')
    const before = backendPid(db)
    expect(terminateOthers(open())).toBeGreaterThan(0)
    expect(backendPid(db)).not.toBe(before)
    expect(db.prepare('SHOW lock_timeout').pluck().get()).toBe('1234ms')
    db.prepare('INSERT INTO t (id) VALUES (1)').run()
    expect(db.prepare('SELECT count(*) FROM t WHERE id = 1').pluck().get()).toBe(1)
  })

  it('fails a transaction cut between two statements, leaves nothing of it, and goes on after', () => {
    const db = open()
    const other = open()
    const e = refusal(() =>
      db
        .transaction(() => {
          db.prepare('INSERT INTO t (id) VALUES (2)').run()
          terminateOthers(other)
          db.prepare('INSERT INTO t (id) VALUES (3)').run()
        })
        .immediate(),
    )
    expect(e.code).toBe('DATABASE')
    expect(e.extras.reason?.key).toBe('LEDGER_UNAVAILABLE')
    expect(e.message).toMatch(
      /connection to the team ledger .* was lost during this write .*nothing of it was written.*try again/i,
    )
    expect(db.inTransaction).toBe(false)
    expect(db.prepare('SELECT count(*) FROM t WHERE id IN (2, 3)').pluck().get()).toBe(0)
    db.prepare('INSERT INTO t (id) VALUES (4)').run()
    expect(other.prepare('SELECT count(*) FROM t WHERE id = 4').pluck().get()).toBe(1)
  })

  it('fails a statement cut while it runs, with nothing of its transaction written', async () => {
    const db = open()
    const pid = backendPid(db)
    // another process ends the connection while this thread waits for the statement's answer
    const killer = spawn(
      'psql',
      [
        '-XAtq',
        '-h',
        '/var/run/postgresql',
        '-d',
        scratch.name,
        '-c',
        `SELECT pg_sleep(0.5); SELECT pg_terminate_backend(${pid})`,
      ],
      { stdio: 'ignore' },
    )
    const ended = new Promise((resolve) => killer.on('exit', resolve))
    const e = refusal(() =>
      db
        .transaction(() => {
          db.prepare('INSERT INTO t (id) VALUES (5)').run()
          db.prepare('SELECT pg_sleep(10)').run()
        })
        .immediate(),
    )
    await ended
    expect(e.extras.reason?.key).toBe('LEDGER_UNAVAILABLE')
    expect(db.prepare('SELECT count(*) FROM t WHERE id = 5').pluck().get()).toBe(0)
  })
})

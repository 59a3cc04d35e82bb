/** SQLite's failures the staff are told in plain words, through the dispatcher as the app wires it. */
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createDispatcher, type Handlers } from '../contract/dispatch'
import { ledgerFailure } from './failure'

const dir = mkdtempSync(join(tmpdir(), 'carats-failure-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function thrown(run: () => unknown): unknown {
  try {
    run()
  } catch (e) {
    return e
  }
  throw new Error('it did not fail')
}

/** A write refused because another connection holds the file's write lock. */
function busyError(): unknown {
  const path = join(dir, 'busy.db')
  const holder = new Database(path)
  holder.exec('CREATE TABLE IF NOT EXISTS t (x)')
  holder.exec('BEGIN IMMEDIATE')
  const other = new Database(path, { timeout: 0 })
  try {
    return thrown(() => other.exec('INSERT INTO t VALUES (1)'))
  } finally {
    other.close()
    holder.exec('ROLLBACK')
    holder.close()
  }
}

describe('a SQLite ledger failure', () => {
  it('says a write that waited its whole time is busy, never "database is locked"', () => {
    const said = ledgerFailure(busyError())
    expect(said?.toData()).toMatchObject({ code: 'CONFLICT', reason: { key: 'LEDGER_BUSY' } })
    expect(said?.message).not.toMatch(/database is locked/)
  })

  it('says a file that is not a ledger cannot be read, and to restore it', () => {
    const path = join(dir, 'garbage.db')
    writeFileSync(path, Buffer.alloc(8192, 7))
    const e = thrown(() => new Database(path).prepare('SELECT 1 FROM sqlite_master').get())
    expect(ledgerFailure(e)?.toData()).toMatchObject({
      code: 'DATABASE',
      message: expect.stringMatching(/cannot be read .*restore it from a backup/),
    })
  })

  it('leaves any other failure alone', () => {
    expect(ledgerFailure(new Error('no such table: t'))).toBeNull()
    expect(ledgerFailure(thrown(() => new Database(':memory:').prepare('SELECT * FROM t')))).toBeNull()
  })

  it('reaches the staff through the dispatcher, and only an unexpected one is logged', async () => {
    const logged: string[] = []
    const failing = {
      'users:list': () => {
        throw busyError()
      },
      'emissions:list': () => {
        throw new Error('bug')
      },
    }
    const d = createDispatcher(
      failing as unknown as Handlers,
      () => ({ userId: 1, name: 'ada', role: 'admin', token: 't' }),
      (channel) => logged.push(channel),
      ledgerFailure,
    )
    expect(await d.dispatch('users:list', {}, 't')).toMatchObject({
      ok: false,
      error: { reason: { key: 'LEDGER_BUSY' } },
    })
    expect(await d.dispatch('emissions:list', {}, 't')).toMatchObject({ ok: false, error: { code: 'INTERNAL' } })
    expect(logged).toEqual(['emissions:list'])
  })
})

/**
 * The audit chain's check goes on past a broken entry (issue 29, item 1): one altered entry is
 * named alone, not with every later one, and a second altered entry further on is named too, so a
 * first break hides no later tampering. The log is altered as an insider with the database would:
 * the `sqlite3` shell, `psql`, the triggers out of the way. Both engines.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openLedger, type Db } from '../../ledger/db'
import { openLedgerKey } from '../../ledger/keystore'
import { createAuditService, type AuditService } from './service'
import { GENESIS_HASH, walkChain } from './chain'
import type { AuditRow } from './context'
import { freshLedgerLocation } from '../../../test/support/fresh-ledger'
import { outsideSql } from '../../../test/support/outside-sql'

let dir: string
let location: string
let keyFile: string | undefined
let db: Db
let audit: AuditService
let now = Date.parse('2026-03-02T09:00:00Z')
const clock = () => new Date((now += 1000))

function open(): void {
  db = openLedger(location)
  const keys = openLedgerKey(db, location, { keyFile })
  audit = createAuditService({ db, clock, keys, dbPath: location, keyFile })
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-chain-'))
  ;({ location, keyFile } = freshLedgerLocation(dir, 'a'))
  open()
  for (let i = 1; i <= 9; i++) audit.record(i % 2 ? 'ada' : 'otto', 'party.add', `player:P-${i}`, { i })
})
afterEach(() => {
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

/** An UPDATE of the log around its triggers, as the database's owner can. */
function alter(statement: string): void {
  db.close()
  const pg = location.startsWith('postgresql:')
  outsideSql(
    location,
    pg
      ? `ALTER TABLE audit DISABLE TRIGGER USER; ${statement}; ALTER TABLE audit ENABLE TRIGGER USER`
      : `DROP TRIGGER IF EXISTS audit_no_update; DROP TRIGGER IF EXISTS audit_no_delete; ${statement}`,
  )
  open()
}

describe('the audit chain check', () => {
  it('names each of two altered entries, and no entry between or after them', () => {
    expect(audit.verify()).toMatchObject({ ok: true, firstBad: null, bad: [], badCount: 0 })
    alter(`UPDATE audit SET actor = 'eve' WHERE seq = 3; UPDATE audit SET object = 'player:P-99' WHERE seq = 7`)
    const v = audit.verify()
    expect(v.ok).toBe(false)
    expect(v.firstBad).toEqual({ seq: 3, reason: 'entry 3 was altered after it was written' })
    expect(v.bad).toEqual([
      { seq: 3, reason: 'entry 3 was altered after it was written' },
      { seq: 7, reason: 'entry 7 was altered after it was written' },
    ])
    expect(v.badCount).toBe(2)
  })

  it('names a removed entry once, and an altered one after it', () => {
    alter(`DELETE FROM audit WHERE seq = 4; UPDATE audit SET details = '{"i":8,"x":1}' WHERE seq = 9`)
    const v = audit.verify()
    expect(v.bad.map((b) => b.seq)).toEqual([5, 9])
    expect(v.bad[0].reason).toMatch(/entries 4…4 are missing/)
    expect(v.bad[1].reason).toMatch(/entry 9 was altered/)
  })
})

describe('walkChain', () => {
  const row = (seq: number, prev: string, hash: string): AuditRow => ({
    seq,
    at: '',
    actor: 'a',
    action: 'x',
    object: 'o',
    details: '{}',
    prev_hash: prev,
    hash,
  })

  it('stops listing at its cap, and still counts every bad entry', () => {
    // every entry unsealed: each one bad on its own
    const rows = Array.from({ length: 1500 }, (_, i) => row(i + 1, i === 0 ? GENESIS_HASH : `h${i}`, `h${i + 1}`))
    const w = walkChain(rows, null, Buffer.alloc(32), null)
    expect(w.bad).toHaveLength(1000)
    expect(w.badCount).toBe(1500)
    expect(w.firstBad).toEqual(w.bad[0])
  })
})

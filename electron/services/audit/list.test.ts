import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AuditSortKey } from '../../contract/types'
import { openLedger, type Db } from '../../ledger/db'
import { listAudit, type AuditListRequest } from './list'
import { testEngine } from '../../../test/support/ledger-engine'
import { freshLedgerLocation } from '../../../test/support/fresh-ledger'

let dir: string
let db: Db
const prepared: string[] = []
/** The ledger as listAudit sees it, every statement's text kept. */
let recording: Db

// seq, at, actor, action, object: the chain's columns do not matter to the list
const ENTRIES: [string, string, string, string][] = [
  ['2026-03-01T08:00:00.000Z', 'ada', 'auth.login', 'user:1'],
  ['2026-03-01T09:00:00.000Z', 'Otto', 'emission.create', 'emission:1'],
  ['2026-03-02T10:00:00.000Z', 'otto', 'emission.generate-start', 'emission:1'],
  ['2026-03-02T11:00:00.000Z', 'os:root', 'sales.import', 'emission:1'],
  ['2026-03-03T12:00:00.000Z', 'ada', 'user.create', 'user:2'],
  ['2026-03-03T13:00:00.000Z', 'ada', 'emission.open', 'emission:10'],
]

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-list-'))
  db = openLedger(freshLedgerLocation(dir, 'l').location)
  const insert = db.prepare(
    "INSERT INTO audit (seq, at, actor, action, object, details, prev_hash, hash) VALUES (?, ?, ?, ?, ?, '{}', '', '')",
  )
  ENTRIES.forEach((e, i) => insert.run(i + 1, ...e))
  prepared.length = 0
  recording = new Proxy(db, {
    get: (t, p) => (p === 'prepare' ? (sql: string) => (prepared.push(sql), t.prepare(sql)) : Reflect.get(t, p, t)),
  })
})
afterEach(() => {
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

const seqs = (r: Partial<AuditListRequest>) =>
  listAudit(recording, { page: 1, pageSize: 50, ...r }).items.map((e) => e.seq)

describe('the audit list', () => {
  it('lists the newest first by default, a page at a time, with the count', () => {
    expect(seqs({})).toEqual([6, 5, 4, 3, 2, 1])
    expect(listAudit(db, { page: 2, pageSize: 4 })).toMatchObject({
      total: 6,
      page: 2,
      pageSize: 4,
      items: [{ seq: 2 }, { seq: 1 }],
    })
  })

  it('filters by the start of the actor, action or object ignoring case, and by days', () => {
    expect(seqs({ actor: 'OTTO' })).toEqual([3, 2])
    expect(seqs({ actor: 'os:' })).toEqual([4])
    expect(seqs({ action: 'Emission.' })).toEqual([6, 3, 2])
    expect(seqs({ object: 'emission:1' })).toEqual([6, 4, 3, 2])
    expect(seqs({ action: 'emission.', object: 'EMISSION:1', actor: 'otto' })).toEqual([3, 2])
    expect(seqs({ from: '2026-03-02', to: '2026-03-02' })).toEqual([4, 3])
    expect(seqs({ action: 'emission.%' })).toEqual([]) // a % is a character, not a wildcard
    expect(listAudit(db, { page: 1, pageSize: 1, actor: 'ada' }).total).toBe(3)
  })

  it('sorts by each column either way, ties by seq in the same direction', () => {
    expect(seqs({ sort: 'seq', order: 'asc' })).toEqual([1, 2, 3, 4, 5, 6])
    expect(seqs({ sort: 'actor', order: 'asc' })).toEqual([1, 5, 6, 4, 2, 3])
    expect(seqs({ sort: 'actor', order: 'desc' })).toEqual([3, 2, 4, 6, 5, 1])
    expect(seqs({ sort: 'action', order: 'asc' })).toEqual([1, 2, 3, 6, 4, 5])
    expect(seqs({ sort: 'object', order: 'desc', actor: 'ada' })).toEqual([5, 1, 6])
    expect(seqs({ sort: 'at', order: 'asc', from: '2026-03-03' })).toEqual([5, 6])
  })

  // SQLite's query plans (EXPLAIN QUERY PLAN and its wording): SQLite only
  it.skipIf(testEngine() === 'postgres')('reads every filter and every sort from an index, never the whole log', () => {
    const sorts: AuditSortKey[] = ['seq', 'at', 'actor', 'action', 'object']
    for (const sort of sorts) for (const order of ['asc', 'desc'] as const) seqs({ sort, order })
    for (const f of [{ actor: 'a' }, { action: 'a' }, { object: 'a' }, { from: '2026-03-01' }, { to: '2026-03-01' }])
      seqs(f)
    expect(prepared.length).toBeGreaterThan(20)
    for (const sql of prepared) {
      const params = Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 'a')
      const steps = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { parent: number; detail: string }[]
      const plan = steps.map((r) => r.detail).join(' | ')
      // the matches of a filter come from its index; with no filter, the sort's index is read in
      // order (the page's own rows, read by seq, are sorted again: a page, not the log)
      if (/WHERE \w+ (COLLATE NOCASE )?[<>]/.test(sql) || /INDEXED BY/.test(sql))
        expect(plan, sql).toMatch(/SEARCH audit USING (COVERING )?INDEX audit_by_\w+ \(/)
      else
        expect(
          steps.filter((r) => r.parent !== 0 && /TEMP B-TREE/.test(r.detail)),
          sql,
        ).toEqual([])
      // only the seq of the matches is sorted (from the index alone), then a page of rows is read by seq
      if (/seq IN/.test(sql)) expect(plan, sql).toMatch(/SEARCH audit USING INTEGER PRIMARY KEY \(rowid=\?\)/)
      if (/INDEXED BY \w+ WHERE \w+ COLLATE NOCASE >= \? AND \w+ COLLATE NOCASE < \? ORDER BY seq/.test(sql))
        expect(plan, sql).toMatch(/COVERING INDEX/)
    }
  })
})

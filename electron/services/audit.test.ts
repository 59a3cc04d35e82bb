import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openLedger, type Db } from '../ledger/db'
import { createAuditService, entryHash, type AuditService } from './audit'

let dir: string
let path: string
let db: Db
let audit: AuditService
let now = Date.parse('2026-03-02T09:00:00Z')
const clock = () => new Date((now += 1000))

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-'))
  path = join(dir, 'a.db')
  db = openLedger(path)
  audit = createAuditService({ db, clock })
  const actions = ['emission.create', 'emission.generate-start', 'emission.generate-done', 'emission.verify-start', 'emission.verify-done', 'emission.open'] as const
  for (let i = 1; i <= 6; i++) audit.record(i % 2 ? 'ada' : 'otto', actions[i - 1], `emission:${i}`, { i })
})
afterEach(() => {
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Edits the file as an attacker would: with another connection, around the triggers. */
function tamper(sql: string): void {
  db.close()
  const raw = new Database(path)
  raw.exec('DROP TRIGGER audit_no_update; DROP TRIGGER audit_no_delete;')
  raw.exec(sql)
  raw.close()
  db = openLedger(path)
  audit = createAuditService({ db, clock })
}

describe('audit log', () => {
  it('chains entries and verifies an untouched log', () => {
    expect(audit.verify()).toEqual({ ok: true, entries: 6, firstBad: null })
    const page = audit.list({ page: 1, pageSize: 4 })
    expect(page.total).toBe(6)
    expect(page.items.map((e) => e.seq)).toEqual([6, 5, 4, 3])
    expect(audit.list({ page: 1, pageSize: 10, actor: 'otto' }).items.map((e) => e.seq)).toEqual([6, 4, 2])
    expect(audit.list({ page: 1, pageSize: 10, action: 'emission.create' }).total).toBe(1)
    expect(audit.list({ page: 1, pageSize: 10, from: '2026-03-03' }).total).toBe(0)
    expect(audit.list({ page: 1, pageSize: 10, from: '2026-03-02', to: '2026-03-02' }).total).toBe(6)
  })

  it('refuses changes through the database while the triggers stand', () => {
    expect(() => db.prepare("UPDATE audit SET actor = 'eve' WHERE seq = 2").run()).toThrow(/append-only/)
    expect(() => db.prepare('DELETE FROM audit WHERE seq = 2').run()).toThrow(/append-only/)
  })

  it('detects an altered entry', () => {
    tamper("UPDATE audit SET details = '{\"i\":99}' WHERE seq = 3")
    expect(audit.verify()).toEqual({ ok: false, entries: 6, firstBad: { seq: 3, reason: 'entry 3 was altered after it was written' } })
  })

  it('detects a deleted entry', () => {
    tamper('DELETE FROM audit WHERE seq = 4')
    expect(audit.verify().firstBad).toEqual({ seq: 5, reason: 'entries 4…4 are missing' })
  })

  it('detects an entry deleted with the sequence renumbered', () => {
    tamper('DELETE FROM audit WHERE seq = 4; UPDATE audit SET seq = seq - 1 WHERE seq > 4')
    expect(audit.verify().firstBad?.seq).toBe(4)
  })

  it('detects an inserted entry, even one with a correct hash of its own', () => {
    tamper('UPDATE audit SET seq = seq + 1000 WHERE seq >= 3; UPDATE audit SET seq = seq - 999 WHERE seq >= 1000')
    const prev = db.prepare('SELECT hash FROM audit WHERE seq = 2').pluck().get() as string
    db.close()
    const raw = new Database(path)
    const fake = { seq: 3, at: '2026-03-02T09:00:02.500Z', actor: 'eve', action: 'user.create', object: 'user:9', details: '{}' }
    // eve forges a link onto entry 2; entry 4 (the old 3) no longer follows
    raw.prepare('INSERT INTO audit (seq, at, actor, action, object, details, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(fake.seq, fake.at, fake.actor, fake.action, fake.object, fake.details, prev, entryHash(prev, fake))
    raw.close()
    db = openLedger(path)
    audit = createAuditService({ db, clock })
    expect(audit.verify().firstBad).toEqual({ seq: 4, reason: 'entry 4 does not follow entry 3: an entry was removed, inserted or altered' })
  })

  it('exports CSV with quoting', () => {
    audit.record('ada', 'user.update', 'x', { text: 'a, "quoted" value' })
    const csv = audit.csv({ actor: 'ada' })
    const lines = csv.content.trim().split('\n')
    expect(lines[0]).toBe('seq,at,actor,action,object,details,hash')
    expect(lines).toHaveLength(5)
    expect(lines[4]).toContain('"{""text"":""a, \\""quoted\\"" value""}"')
    expect(csv.fileName).toMatch(/^audit-2026-03-02\.csv$/)
  })
})

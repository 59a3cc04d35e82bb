import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openLedger, type Db } from '../../ledger/db'
import { keyFilePath, openLedgerKey, type KeyStore } from '../../ledger/keystore'
import { checkpointFilePath } from '../../ledger/checkpoint'
import { createAuditService, entryHash, type AuditService } from './service'
import { testEngine } from '../../../test/support/ledger-engine'
import { freshLedgerLocation } from '../../../test/support/fresh-ledger'

let dir: string
let path: string
let keyFile: string | undefined
let db: Db
let keys: KeyStore
let audit: AuditService
let now = Date.parse('2026-03-02T09:00:00Z')
const clock = () => new Date((now += 1000))

function open(): void {
  db = openLedger(path)
  keys = openLedgerKey(db, path, { keyFile })
  audit = createAuditService({ db, clock, keys, dbPath: path, keyFile })
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-'))
  const ledger = freshLedgerLocation(dir, 'a')
  path = ledger.location
  keyFile = ledger.keyFile
  open()
  const actions = [
    'emission.create',
    'emission.generate-start',
    'emission.generate-done',
    'emission.verify-start',
    'emission.verify-done',
    'emission.open',
  ] as const
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
  raw.exec('DROP TRIGGER IF EXISTS audit_no_update; DROP TRIGGER IF EXISTS audit_no_delete;')
  raw.exec(sql)
  raw.close()
  open()
}

/** Rewrites every entry's hash as plain SHA-256 from `from` on (what anyone can compute without the key). */
function rewriteWithRecomputedHashes(from: number): void {
  db.close()
  const raw = new Database(path)
  raw.exec('DROP TRIGGER IF EXISTS audit_no_update')
  const rows = raw.prepare('SELECT * FROM audit ORDER BY seq').all() as {
    seq: number
    at: string
    actor: string
    action: string
    object: string
    details: string
    prev_hash: string
    hash: string
  }[]
  let prev = rows[from - 2]?.hash ?? '0'.repeat(64)
  for (const r of rows.slice(from - 1)) {
    const actor = r.seq === 4 ? 'eve' : r.actor
    const hash = entryHash(prev, { ...r, actor })
    raw.prepare('UPDATE audit SET actor = ?, prev_hash = ?, hash = ? WHERE seq = ?').run(actor, prev, hash, r.seq)
    prev = hash
  }
  raw.close()
  open()
}

/**
 * A test that edits the SQLite file behind the ledger's back (another better-sqlite3 connection
 * with the triggers dropped, a copy of the file put back): SQLite only.
 */
const onFile = it.skipIf(testEngine() === 'postgres')

describe('audit log', () => {
  it('keys its chain with its first entry, and verifies an untouched log against its checkpoint', () => {
    const v = audit.verify()
    expect(v).toMatchObject({ ok: true, entries: 7, firstBad: null, keyedFrom: 1 })
    expect(v.checkpoint).toMatchObject({
      status: 'ok',
      entries: 7,
      problem: null,
      file: checkpointFilePath(path, keyFile),
    })
    expect(v.checkpoint.head).toBe(db.prepare('SELECT hash FROM audit WHERE seq = 7').pluck().get())
    expect(audit.list({ page: 1, pageSize: 10, action: 'audit.keyed' }).items[0].actor).toBe('system')
    const page = audit.list({ page: 1, pageSize: 4 })
    expect(page.total).toBe(7)
    expect(page.items.map((e) => e.seq)).toEqual([7, 6, 5, 4])
    expect(audit.list({ page: 1, pageSize: 10, actor: 'otto' }).items.map((e) => e.seq)).toEqual([7, 5, 3])
    expect(audit.list({ page: 1, pageSize: 10, from: '2026-03-03' }).total).toBe(0)
  })

  it('refuses changes through the database while the triggers stand', () => {
    expect(() => db.prepare("UPDATE audit SET actor = 'eve' WHERE seq = 2").run()).toThrow(/append-only/)
    expect(() => db.prepare('DELETE FROM audit WHERE seq = 2').run()).toThrow(/append-only/)
  })

  onFile('detects an altered entry', () => {
    tamper('UPDATE audit SET details = \'{"i":99}\' WHERE seq = 3')
    expect(audit.verify()).toMatchObject({
      ok: false,
      entries: 7,
      firstBad: { seq: 3, reason: 'entry 3 was altered after it was written' },
    })
  })

  onFile('detects a deleted entry, and one deleted with the sequence renumbered', () => {
    tamper('DELETE FROM audit WHERE seq = 4')
    expect(audit.verify().firstBad).toEqual({ seq: 5, reason: 'entries 4…4 are missing' })
    tamper('UPDATE audit SET seq = seq - 1 WHERE seq > 4')
    expect(audit.verify().firstBad?.seq).toBe(4)
  })

  onFile('detects a log rewritten with recomputed SHA-256 hashes: a keyed link needs the key', () => {
    rewriteWithRecomputedHashes(1)
    expect(audit.verify()).toMatchObject({
      ok: false,
      firstBad: { seq: 1, reason: 'entry 1 was altered after it was written' },
    })
  })

  onFile('detects a cut tail through its checkpoint', () => {
    tamper('DELETE FROM audit WHERE seq >= 6')
    const v = audit.verify()
    expect(v.ok).toBe(false)
    expect(v.firstBad).toBeNull()
    expect(v.checkpoint).toMatchObject({ status: 'cut', entries: 7 })
    expect(v.checkpoint.problem).toMatch(
      /counts 7 entries, the log holds 5: entries were cut from its end, or the file was rolled back/,
    )
  })

  onFile(
    'does not take a wiped log, its facts and checkpoint gone too, for a new one: it stays refused until re-anchored',
    () => {
      db.prepare(
        "INSERT INTO emissions (emission, code, blocks, definition, definition_digest, created_at) VALUES (1, 'E1', 1, '{}', 'x', 't')",
      ).run()
      tamper(
        "DELETE FROM audit; DROP TRIGGER ledger_meta_no_delete; DELETE FROM ledger_meta WHERE name = 'audit_keyed_from'",
      )
      rmSync(checkpointFilePath(path, keyFile))
      audit.ensureKeyed()
      expect(audit.verify()).toMatchObject({
        ok: false,
        entries: 0,
        firstBad: { seq: 1, reason: expect.stringMatching(/its entries were wiped/) },
      })
      expect(() => audit.record('ada', 'emission.close', 'emission:1')).toThrow(/audit reanchor/)
      expect(db.prepare('SELECT count(*) FROM audit').pluck().get()).toBe(0)
      audit.reanchor('admin', 'the log was found wiped on 2 March; the police were told')
      expect(audit.verify()).toMatchObject({ ok: true, entries: 2, checkpoint: { status: 'ok' } })
    },
  )

  onFile('detects a wiped log, even with the ledger facts wiped too', () => {
    tamper(
      "DELETE FROM audit; DROP TRIGGER ledger_meta_no_delete; DELETE FROM ledger_meta WHERE name = 'audit_keyed_from'",
    )
    expect(audit.verify().checkpoint.status).toBe('cut')
  })

  onFile('detects the file rolled back to an earlier copy, and does not move the checkpoint on over it', () => {
    db.close()
    const early = join(dir, 'early.db')
    copyFileSync(path, early)
    open()
    audit.record('ada', 'emission.close', 'emission:1')
    db.close()
    copyFileSync(early, path)
    open()
    expect(audit.verify().checkpoint.status).toBe('cut')
    // new entries on the rolled-back file: the checkpoint still names the entry that was replaced
    audit.record('eve', 'emission.close', 'emission:1')
    audit.record('eve', 'emission.close', 'emission:1')
    expect(audit.verify().checkpoint).toMatchObject({ status: 'rewritten', entries: 8 })
  })

  onFile('refuses a missing, altered or foreign checkpoint', () => {
    const file = checkpointFilePath(path, keyFile)
    const saved = readFileSync(file, 'utf8')
    rmSync(file)
    expect(audit.verify().checkpoint.status).toBe('missing')
    // nor does a new entry make a fresh one over the evidence
    audit.record('ada', 'emission.close', 'emission:1')
    expect(audit.verify().checkpoint.status).toBe('missing')
    writeFileSync(file, saved.replace('"entries": 7', '"entries": 8'))
    expect(audit.verify().checkpoint.status).toBe('altered')
    writeFileSync(file, saved)
    expect(audit.verify().checkpoint.status).toBe('behind')
    tamper("DROP TRIGGER ledger_meta_no_update; UPDATE ledger_meta SET value = 'feedfeed' WHERE name = 'ledger_id'")
    expect(audit.verify().checkpoint.status).toBe('other-ledger')
  })

  it("re-anchors the checkpoint on an administrator's word, and the log says so", () => {
    rmSync(checkpointFilePath(path, keyFile))
    const e = audit.reanchor('admin', 'checkpoint lost when the disk was replaced')
    expect(JSON.parse(e.details)).toMatchObject({
      previous: 'missing',
      reason: 'checkpoint lost when the disk was replaced',
    })
    expect(audit.verify()).toMatchObject({ ok: true, checkpoint: { status: 'ok', entries: 8 } })
  })

  onFile('keys the log of an older ledger: an entry says so, and seals the earlier SHA-256 entries', () => {
    rmSync(checkpointFilePath(path, keyFile))
    db.close()
    // an older ledger's log: plain SHA-256 links, no fingerprint, no checkpoint
    const raw = new Database(path)
    raw.exec(
      "DROP TRIGGER audit_no_delete; DROP TRIGGER ledger_meta_no_delete; DELETE FROM ledger_meta WHERE name <> 'ledger_id'; DELETE FROM audit",
    )
    let prev = '0'.repeat(64)
    for (let seq = 1; seq <= 3; seq++) {
      const e = {
        seq,
        at: `2025-01-0${seq}T00:00:00.000Z`,
        actor: 'ada',
        action: 'emission.create',
        object: `emission:${seq}`,
        details: '{}',
      }
      const hash = entryHash(prev, e)
      raw
        .prepare(
          'INSERT INTO audit (seq, at, actor, action, object, details, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(e.seq, e.at, e.actor, e.action, e.object, e.details, prev, hash)
      prev = hash
    }
    raw.close()
    open()
    audit.ensureKeyed()
    const v = audit.verify()
    expect(v).toMatchObject({ ok: true, entries: 4, keyedFrom: 4, checkpoint: { status: 'ok' } })
    expect(JSON.parse(audit.list({ page: 1, pageSize: 1 }).items[0].details)).toEqual({
      key: keys.fingerprint().slice(0, 16),
      earlierEntries: 3,
      earlierHead: prev,
      rowsSealed: true,
    })
    // an earlier entry rewritten with its SHA-256 chain recomputed no longer joins the keyed entry
    rewriteWithRecomputedHashes(2)
    expect(audit.verify().firstBad?.seq).toBe(4)
  })

  it('needs the key to verify or to write', () => {
    db.close()
    rmSync(keyFile ?? keyFilePath(path))
    open()
    expect(() => audit.verify()).toThrow(/key file .* is missing/)
    expect(() => audit.record('ada', 'emission.close', 'emission:1')).toThrow(/restore that file from the backup/)
  })

  it('exports CSV with quoting', () => {
    audit.record('ada', 'user.update', 'x', { text: 'a, "quoted" value' })
    const csv = audit.csv({ actor: 'ada' })
    const lines = csv.content.trim().split('\n')
    expect(lines[0]).toMatch(
      /^# software=carats-back-office [\d.]+,as_of=2026-03-02T[\d:.]+Z,actor=ada,action=,object=,from=,to=$/,
    )
    expect(lines[1]).toBe('seq,at,actor,action,object,details,hash')
    expect(lines).toHaveLength(6)
    expect(lines[5]).toContain('"{""text"":""a, \\""quoted\\"" value""}"')
    expect(csv.fileName).toMatch(/^audit-2026-03-02\.csv$/)
  })
})

/**
 * The regulator's vault (issue 33): attached to a ledger, fed every event as it commits, verified
 * from its files and public key alone, witnessed; an insider who cuts or rewrites the audit log
 * (and puts its checkpoint back), alters a vault file or rolls the vault back is named. On both
 * engines: the `sqlite3` shell on the file, `psql` on a team ledger.
 */
import { createHmac } from 'node:crypto'
import { cpSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Backend } from '../../electron/app/backend'
import { feedLine } from '../../electron/services/import'
import { exportVault, verifyVault, witnessCosign, witnessInit } from '../../electron/services/vault'
import { canonicalJson } from '../../game-core/commitment'
import { formatSerial } from '../../game-core/serial'
import { CHECKPOINT_KEY_LABEL, readCheckpoint, writeCheckpoint } from '../../electron/ledger/checkpoint'
import { outsideSql } from '../support/outside-sql'
import { actor, ledgerOf, samplePlay, T0, tempDir } from './ledger-fixture'
import { signIn, useTemplateLedgers } from './staff-calls'

/** Folders of the vaults and witnesses (the vault's on a share of its own, a witness's the auditor's). */
const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))
const scratch = () => {
  const d = tempDir('vault')
  dirs.push(d)
  return d
}
// after the folders' hook is declared, so it runs first: each ledger sends its last events before its vault goes
const { ledger } = useTemplateLedgers('vault')
const DAY = 86_400_000

function feed(b: Backend, n: number, tag: string): string {
  const next = b.services.sales.nextUnit(1)!
  const lines = Array.from({ length: n }, (_, i) =>
    feedLine({
      saleId: `${tag}-${i}`,
      serial: formatSerial({ emission: 1, block: next.block, unit: next.unit + i }),
      player: `player-${i % 7}`,
      soldAt: T0 + DAY + i * 1000,
      stakeCents: 500,
      play: samplePlay(i),
    }),
  )
  return lines.join('\n') + '\n'
}

/** A ledger with its vault, some sales sent; the vault's folder beside the ledger. */
async function withVault() {
  const b = await ledger()
  const folder = join(scratch(), 'vault')
  b.services.vault.attach('ada', folder)
  const imported = feed(b, 300, 'A')
  b.services.importer.importHere(actor('operator'), imported, 'a.jsonl')
  b.services.vault.drain()
  return { b, folder, imported }
}

const entries = (b: Backend) => b.services.audit.list({ page: 1, pageSize: 1, sort: 'seq', order: 'desc' }).total
const sql = (b: Backend, text: string) => outsideSql(ledgerOf(b).location, text)
/** Removes the audit log's entries after `seq`, its guarding triggers out of the way, as the database's owner can. */
function cutLog(b: Backend, seq: number): void {
  const pg = ledgerOf(b).location.startsWith('postgresql:')
  const del = `DELETE FROM audit WHERE seq > ${seq}`
  sql(
    b,
    pg
      ? `ALTER TABLE audit DISABLE TRIGGER USER; ${del}; ALTER TABLE audit ENABLE TRIGGER USER`
      : `DROP TRIGGER IF EXISTS audit_no_delete; ${del}`,
  )
}

describe('the vault', () => {
  it('receives every sale and audit entry in order, and verifies from its files and key alone', async () => {
    const { b, folder } = await withVault()
    const status = b.services.vault.status()
    expect(status).toMatchObject({ attached: true, folder, behind: { entries: 0, sales: 0 }, problem: null })
    // the 300 sales in one line (up to 1,000 a line), each audit entry in its own
    expect(status.size).toBe(1 + entries(b))
    const v = verifyVault(folder, { key: status.verifierKey!, event: 5 })
    expect(v).toMatchObject({ ok: true, events: status.size, unsigned: 0, problems: [], keyFrom: 'given' })
    expect(v.inclusion).toMatchObject({ event: 5, ok: true, size: status.size })
    const lines = readdirSync(join(folder, 'events')).flatMap((f) =>
      readFileSync(join(folder, 'events', f), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    )
    expect(lines.map((e) => e.i)).toEqual(lines.map((_, i) => i))
    const sales = lines.filter((e) => e.type === 'sales').flatMap((e) => e.sales)
    expect(sales).toHaveLength(300)
    expect(sales.find((e) => e.saleId === 'A-7')).toMatchObject({ player: 'player-0', stakeCents: 500 })
    expect(lines.filter((e) => e.type === 'audit')).toHaveLength(entries(b))
    expect(b.services.audit.verify()).toMatchObject({ ok: true, vault: { ok: true, problems: [] } })
    // the regulator's export of the days holds every sale, and verifies on its own
    const today = new Date().toISOString().slice(0, 10)
    const out = join(scratch(), 'export')
    expect(exportVault(folder, '2020-01-01', today, out, new Date().toISOString())).toMatchObject({
      events: status.size,
    })
    const exported = readdirSync(join(out, 'events')).flatMap((f) =>
      readFileSync(join(out, 'events', f), 'utf8')
        .trim()
        .split('\n'),
    )
    const exportedSales = exported.map((l) => JSON.parse(l)).filter((e) => e.type === 'sales')
    expect(exportedSales.flatMap((e) => e.sales)).toHaveLength(300)
    expect(verifyVault(out, { key: status.verifierKey! }).ok).toBe(true)
  }, 120_000)

  it('names a log cut below what the vault received, though its old checkpoint was put back', async () => {
    const { b } = await withVault()
    const cpFile = b.services.audit.checkpointFile
    const oldCheckpoint = readFileSync(cpFile)
    const before = entries(b)
    await signIn(b, 'aude')
    await signIn(b, 'max')
    b.services.vault.drain()
    cutLog(b, before)
    writeFileSync(cpFile, oldCheckpoint)
    const v = b.services.audit.verify()
    // the chain and its checkpoint agree: only the vault can tell
    expect(v.firstBad).toBeNull()
    expect(v.checkpoint.status).toBe('ok')
    expect(v.ok).toBe(false)
    expect(v.vault!.problems.join('\n')).toMatch(new RegExp(`ends at ${before}: entries ${before + 1}…\\d+ were cut`))
  }, 120_000)

  it('still names a cut log after the ledger has written past it and the app sent again', async () => {
    const { b } = await withVault()
    const cpFile = b.services.audit.checkpointFile
    const oldCheckpoint = readFileSync(cpFile)
    const before = entries(b)
    await signIn(b, 'aude')
    b.services.vault.drain()
    const received = b.services.vault.status().received.entries
    cutLog(b, before)
    writeFileSync(cpFile, oldCheckpoint)
    // the ledger goes on: its new entries take the numbers the vault already received, and more
    for (const name of ['max', 'aude', 'max']) await signIn(b, name)
    expect(entries(b)).toBeGreaterThan(received)
    b.services.vault.drain()
    // the vault keeps what it received: the rewritten entries are not sent on top of it
    expect(b.services.vault.status().received.entries).toBe(received)
    expect(b.services.vault.status().logDiverged).toMatch(`audit entry ${received} is not the one the vault received`)
    const v = b.services.audit.verify()
    expect(v.ok).toBe(false)
    expect(v.vault!.problems.join('\n')).toMatch(`audit entry ${received} is not the one the vault received`)
  }, 120_000)

  it('is resumed after an older backup was put back: the vault records it, and the log is sent again', async () => {
    const { b, folder } = await withVault()
    const v = b.services.vault
    expect(() => v.resume('os:root', 'nothing is wrong yet')).toThrow('nothing to resume')
    const before = entries(b)
    const checkpoint = readFileSync(b.services.audit.checkpointFile)
    await signIn(b, 'aude')
    v.drain()
    const received = v.status().received.entries
    // as a backup taken before that sign-in, put back: its log and its checkpoint
    cutLog(b, before)
    writeFileSync(b.services.audit.checkpointFile, checkpoint)
    await signIn(b, 'max')
    expect(v.status().logDiverged).not.toBeNull()
    const { resumption, status } = v.resume('os:root', 'backup of the morning restored after a disk failure')
    expect(resumption).toMatchObject({ received: { seq: received }, agreed: { seq: before } })
    expect(status.logDiverged).toBeNull()
    v.drain()
    expect(b.services.audit.verify()).toMatchObject({ ok: true, vault: { ok: true } })
    expect(verifyVault(folder).ok).toBe(true)
    // the vault keeps the entries it had received, the line that says who resumed and why, then the log again
    const lines = readdirSync(join(folder, 'events'))
      .flatMap((f) =>
        readFileSync(join(folder, 'events', f), 'utf8')
          .trim()
          .split('\n'),
      )
      .map((l) => JSON.parse(l))
    const at = lines.findIndex((l) => l.type === 'resumed')
    expect(lines[at]).toMatchObject({ by: 'os:root', reason: 'backup of the morning restored after a disk failure' })
    expect(lines.slice(0, at).filter((l) => l.type === 'audit' && l.seq > before).length).toBe(received - before)
    const after = lines.slice(at + 1).filter((l) => l.type === 'audit')
    expect(after[0].seq).toBe(before + 1)
    expect(after.map((l) => l.action)).toContain('vault.resumed')
  }, 120_000)

  it('names a vault setting removed or pointed elsewhere by the database owner', async () => {
    const { b, folder } = await withVault()
    const pg = ledgerOf(b).location.startsWith('postgresql:')
    const meta = (change: string) =>
      sql(
        b,
        pg
          ? `ALTER TABLE ledger_meta DISABLE TRIGGER USER; ${change}; ALTER TABLE ledger_meta ENABLE TRIGGER USER`
          : `DROP TRIGGER IF EXISTS ledger_meta_no_update; DROP TRIGGER IF EXISTS ledger_meta_no_delete; ${change}`,
      )
    const other = join(scratch(), 'empty-vault')
    meta(`UPDATE ledger_meta SET value = '${other}' WHERE name = 'vault_folder'`)
    let v = b.services.audit.verify()
    expect(v.ok).toBe(false)
    expect(v.vault!.problems.join('\n')).toContain(`the vault attached was ${folder}; the ledger now names ${other}`)
    meta("DELETE FROM ledger_meta WHERE name = 'vault_folder'")
    v = b.services.audit.verify()
    expect(v.ok).toBe(false)
    expect(v.vault!.problems.join('\n')).toContain(`the vault attached was ${folder}; the ledger now names none`)
    // the log remembers the vault: another one is refused, the same one is taken back
    expect(() => b.services.vault.attach('ada', other)).toThrow(`this ledger's vault is ${folder}`)
    b.services.vault.attach('ada', folder)
    expect(b.services.audit.verify()).toMatchObject({ ok: true, vault: { ok: true } })
  }, 120_000)

  it("refuses to write after its writer's place was put back older or removed, and cuts nothing signed", async () => {
    const { b, folder } = await withVault()
    const v = b.services.vault
    const statePath = join(folder, 'state.json')
    const older = readFileSync(statePath)
    await signIn(b, 'aude')
    v.drain()
    const dayFiles = () => readdirSync(join(folder, 'events')).map((f) => readFileSync(join(folder, 'events', f)))
    const signed = dayFiles()
    await signIn(b, 'max')
    v.stopShipping() // the app closed: the next one opens the folder afresh
    writeFileSync(statePath, older)
    expect(() => v.drain()).toThrow('fewer than the')
    expect(dayFiles()).toEqual(signed)
    expect(v.status().problem?.message).toMatch('state.json')
    rmSync(statePath)
    expect(() => v.drain()).toThrow('is missing')
    expect(dayFiles()).toEqual(signed)
    expect(verifyVault(folder).ok).toBe(true)
  }, 120_000)

  it('names a log rewritten with the key, its checkpoint rewritten too', async () => {
    const { b } = await withVault()
    const s = b.services
    const [last] = s.audit.list({ page: 1, pageSize: 1, sort: 'seq', order: 'desc' }).items
    // the insider holds the key: the entry's new hash and the checkpoint are made as the app makes them
    const details = last.details.replace(/"imported":\d+/, '"imported":1')
    const prev = sql(b, `SELECT prev_hash FROM audit WHERE seq = ${last.seq}`)
    const fields = {
      prev,
      seq: last.seq,
      at: last.at,
      actor: last.actor,
      action: last.action,
      object: last.object,
      details,
    }
    const hash = createHmac('sha256', s.keys.derive('CARATS-AUDIT-CHAIN/1')).update(canonicalJson(fields)).digest('hex')
    const pg = ledgerOf(b).location.startsWith('postgresql:')
    const update = `UPDATE audit SET details = '${details}', hash = '${hash}' WHERE seq = ${last.seq}`
    sql(
      b,
      pg
        ? `ALTER TABLE audit DISABLE TRIGGER USER; ${update}; ALTER TABLE audit ENABLE TRIGGER USER`
        : `DROP TRIGGER IF EXISTS audit_no_update; ${update}`,
    )
    const cp = readCheckpoint(s.audit.checkpointFile, s.keys.derive(CHECKPOINT_KEY_LABEL)).checkpoint!
    writeCheckpoint(s.audit.checkpointFile, s.keys.derive(CHECKPOINT_KEY_LABEL), { ...cp, head: hash })
    const v = s.audit.verify()
    expect(v.firstBad).toBeNull()
    expect(v.checkpoint.status).toBe('ok')
    expect(v.ok).toBe(false)
    expect(v.vault!.problems).toEqual([
      `audit entry ${last.seq} is not the one the vault received: the log was rewritten from that entry or before`,
    ])
  }, 120_000)

  it('catches an altered vault file, and a witness refuses a vault rolled back', async () => {
    const { b, folder } = await withVault()
    const dir = scratch()
    const witness = join(dir, 'witness')
    witnessInit(witness, 'audit.example/aude')
    const early = join(dir, 'vault-copy')
    cpSync(folder, early, { recursive: true })
    b.services.importer.importHere(actor('operator'), feed(b, 50, 'B'), 'b.jsonl')
    b.services.vault.drain()
    expect(witnessCosign(witness, folder, new Date())).toMatchObject({ previous: null })
    // a vault put back to its earlier copy: the witness's last checkpoint is ahead of it
    const live = join(dir, 'vault-live')
    renameSync(folder, live)
    cpSync(early, folder, { recursive: true })
    expect(() => witnessCosign(witness, folder, new Date())).toThrow(/was rolled back/)
    rmSync(folder, { recursive: true })
    renameSync(live, folder)
    // one sale's player changed in the vault's file
    const [day] = readdirSync(join(folder, 'events'))
    const file = join(folder, 'events', day)
    writeFileSync(file, readFileSync(file, 'utf8').replace('"player":"player-3"', '"player":"player-9"'))
    const v = verifyVault(folder)
    expect(v.ok).toBe(false)
    expect(v.problems.join('\n')).toMatch(/does not match the first \d+ events/)
    expect(() => witnessCosign(witness, folder, new Date())).toThrow(/does not match its events/)
  }, 120_000)

  it("reconciles a day: the feed's sale the ledger lacks and a sale that differs are named by serial", async () => {
    const { b, imported } = await withVault()
    const day = new Date(T0 + DAY).toISOString().slice(0, 10)
    // the platform's feed of the day: what was imported, one player changed, and one sale more
    const more = JSON.parse(feed(b, 1, 'X').trim()) as { serial: string }
    const lines = imported.trim().split('\n')
    const changed = JSON.parse(lines[10]) as { serial: string; player: string }
    lines[10] = JSON.stringify({ ...changed, player: 'someone-else' })
    const content = [...lines, JSON.stringify(more)].join('\n') + '\n'
    const r = b.services.vault.reconcile('aude', day, { content, fileName: 'platform.jsonl' })
    expect(r.ok).toBe(false)
    expect(r.totals.ledger).toEqual(r.totals.vault)
    expect(r.totals.ledger.units).toBe(300)
    expect(r.totals.feed).toMatchObject({ units: 301, stakeCents: 301 * 500, prizeCents: null })
    expect(r.differences).toEqual([
      expect.objectContaining({ serial: changed.serial, problem: 'differs', feedLine: 11 }),
      expect.objectContaining({ serial: more.serial, problem: 'not-in-ledger', feedLine: 301 }),
    ])
    expect(r.differences[0].detail).toMatch(/player "someone-else" \/ "player-3"/)
    // the result is sealed in the log, and reaches the vault with it
    const [sealed] = b.services.audit.list({ page: 1, pageSize: 1, action: 'vault.reconciled' }).items
    expect(sealed.seq).toBe(r.sealedAs)
    expect(JSON.parse(sealed.details)).toMatchObject({
      day,
      ok: false,
      differences: 2,
      serials: [changed.serial, more.serial],
    })
    expect(b.services.vault.status().behind.entries).toBe(0)
    // a day with no sale gives a report too
    const quiet = b.services.vault.reconcile('aude', '2026-01-01')
    expect(quiet).toMatchObject({ ok: true, rows: [], differenceCount: 0, totals: { ledger: { units: 0 } } })
  }, 120_000)

  it('keeps the events in the ledger while the vault is away, and sends them when it is back', async () => {
    const { b, folder } = await withVault()
    const away = `${folder}-away`
    renameSync(folder, away)
    writeFileSync(folder, 'not a folder')
    await signIn(b, 'max')
    expect(() => b.services.vault.ship()).toThrow(/cannot be written/)
    expect(b.services.vault.status()).toMatchObject({
      problem: { message: expect.stringMatching(/cannot be written/) },
    })
    expect(b.services.vault.status().behind.entries).toBeGreaterThan(0)
    rmSync(folder)
    renameSync(away, folder)
    b.services.vault.drain()
    expect(b.services.vault.status()).toMatchObject({ problem: null, behind: { entries: 0, sales: 0 } })
    expect(verifyVault(folder).ok).toBe(true)
    expect(b.services.audit.verify().ok).toBe(true)
  }, 120_000)
})

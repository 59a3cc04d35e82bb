/**
 * The ledger as a system of record, from the command line: its check, backups and restores, and
 * the audit log's verification, export and checkpoint.
 */
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { AuditVerification, LedgerCheckReport, RestoreReport } from '../contract/types'
import { displayLocation, isPostgresUrl } from '../ledger/location'
import { openBackend } from '../app/backend'
import { counted, systemClock } from '../services/common'
import {
  backupLedger,
  checkLedger,
  checkSummary,
  restoreFiles,
  restoreReport,
  stageFileRestore,
  type RestoreOptions,
  commitFileRestore,
  discardFileRestore,
  restoreStage,
} from '../services/ledger-office'
import { UsageError, type Command } from './io'
import { eur, int, ledgerPath, options, print, withBackend } from './command-kit'
import { cliReason } from './text-args'

function checkpointText(v: AuditVerification): string {
  const c = v.checkpoint
  const what = c.entries === null ? '' : ` (${int(c.entries)} entries, head ${c.head}, written ${c.at})`
  return `checkpoint ${c.status}${what}${c.problem ? `: ${c.problem}` : ''}\n  file ${c.file}`
}

/** The chain's verdict: every entry that breaks it, each on its line (the check goes on past a broken entry). */
function chainText(v: AuditVerification): string {
  if (!v.firstBad)
    return `audit log: ${int(v.entries)} entries, hash chain verified${v.keyedFrom ? `, keyed from entry ${v.keyedFrom}` : ''}`
  if (v.badCount <= 1) return `audit log BROKEN at entry ${v.firstBad.seq}: ${v.firstBad.reason}`
  const more = v.badCount - v.bad.length
  return [
    `audit log BROKEN at ${int(v.badCount)} entries:`,
    ...v.bad.map((b) => `  entry ${b.seq}: ${b.reason}`),
    ...(more > 0 ? [`  … ${int(more)} more (--json lists the first ${int(v.bad.length)})`] : []),
  ].join('\n')
}

/** The log against the ledger's vault (services/vault/compare.ts): what an insider with the key cannot hide. */
function vaultText(v: AuditVerification): string[] {
  const c = v.vault
  if (!c) return []
  const head = `vault ${c.folder}: ${c.ok ? `the log agrees with the ${int(c.size)} events it received` : 'DISAGREES WITH THE LEDGER'}`
  return [
    head,
    ...c.witnesses.map(
      (w) => `  witness ${w.witness}: cosigned ${int(w.size)} events ${w.at ?? ''}${w.problem ? `: ${w.problem}` : ''}`,
    ),
    ...c.problems.map((p) => `  ${p}`),
  ]
}

function auditText(v: AuditVerification): string {
  return [chainText(v), checkpointText(v), ...vaultText(v)].join('\n')
}

/** SQLite's 'ok' as one word; PostgreSQL's report says what it checked in place of integrity_check. */
function integrityText(i: LedgerCheckReport['integrity']): string {
  if (i.engine === 'sqlite') return `integrity (SQLite): ${i.ok ? 'ok' : i.messages.join('; ')}`
  return `integrity (PostgreSQL): ${i.ok ? 'ok' : 'NOT OK'}\n${i.messages.map((m) => `  ${m}`).join('\n')}`
}

/** The security-relevant rows the audit log does not account for (audit/seals.ts), each named. */
function recordsText(r: LedgerCheckReport['records']): string {
  if (r.findings.length === 0)
    return `records: ${int(r.rows)} accounts, claims, register entries, emissions and ceremonies, each as the audit log made it`
  return [
    `records: ${int(r.findings.length)} of ${int(r.rows)} NOT accounted for by the audit log (changed outside the app):`,
    ...r.findings.map((f) => `  ${f.row}: ${f.problem}`),
  ].join('\n')
}

function liabilityLine(l: LedgerCheckReport['data']['liability']): string {
  const what = `${counted(l.blocks, 'block', int)}, prize tables ${eur(l.tableCents)}`
  return l.balanced
    ? `prize liability: ${what}: credited + paid + outstanding + expired + void + unsold = prize table, for every block`
    : `prize liability: ${what}: SOME BLOCKS DO NOT ADD UP (LIABILITY_GAP above; carats report liability --tiers)`
}

function checkText(path: string, r: LedgerCheckReport): string {
  const d = r.data
  const lines = [
    `ledger ${displayLocation(path)}: ${r.ok ? 'sound' : 'NOT SOUND'} (checked in ${r.seconds} s, as of ${r.at})`,
    integrityText(r.integrity),
    auditText(r.audit),
    recordsText(r.records),
    `data: ${int(d.salesRows)} sales rows, ${int(d.unitsRederived)} units' prizes re-derived from their block's secret: ` +
      (d.problemCount === 0 ? 'every counter and prize agrees' : counted(d.problemCount, 'disagreement', int)),
    ...d.problems.slice(0, 20).map((p) => `  ${p.kind}: ${p.message}`),
    liabilityLine(d.liability),
  ]
  if (d.problems.length > 20) lines.push(`  … ${int(d.problemCount - 20)} more (--json lists up to 50 of each kind)`)
  return lines.join('\n')
}

const ledgerCheck: Command = (ctx) =>
  withBackend(ctx, async (b) => {
    const { values } = options(ctx, { 'no-prizes': { type: 'boolean' } })
    const s = b.services
    const r = await checkLedger(s, {
      prizes: !values['no-prizes'],
      progress: (done, total) => ctx.io.progress(`checking: ${int(done)} / ${int(total)} sales`),
    })
    ctx.io.progress('')
    s.audit.record(b.actor.name, 'ledger.check', 'ledger', checkSummary(r))
    print(ctx, r, () => checkText(s.dbPath, r))
    return r.ok ? 0 : 1
  })

const backup: Command = (ctx) =>
  withBackend(ctx, async (b) => {
    const { pos } = options(ctx, {}, 1)
    if (!pos[0]) throw new UsageError('name the backup file: carats backup <file>')
    const r = await backupLedger(b.services, b.actor.name, resolve(pos[0]))
    print(ctx, r, () =>
      [
        `backup ${r.file}: ${int(r.bytes)} bytes, with its key ${r.keyFile} (keep both together, mode 0600) and its checkpoint ${r.checkpointFile}`,
        r.check.ok
          ? `the copy was checked${r.check.integrity.engine === 'postgres' ? ' (restored into a scratch database, then dropped)' : ''}: integrity ok, audit chain and checkpoint ok, every counter agrees`
          : `THE COPY DOES NOT PASS ITS CHECK; it is kept for investigation:\n${checkText(r.file, r.check)}`,
      ].join('\n'),
    )
    return r.check.ok ? 0 : 1
  })

const restore: Command = async (ctx) => {
  const { values, pos } = options(ctx, { replace: { type: 'boolean' }, 'key-file': { type: 'string' } }, 1)
  if (!pos[0])
    throw new UsageError(
      'name the backup to restore: carats restore <backup file> [--replace] (onto a team ledger: --db <URL of an empty database>)',
    )
  const target = ledgerPath(ctx.db)
  const backupFile = resolve(pos[0])
  const o = { backup: backupFile, target, keyFile: values['key-file'], replace: values.replace, clock: systemClock }
  const r = isPostgresUrl(target) ? await restoreTeamLedger(o) : await restoreLedgerFile(o)
  print(ctx, r, () =>
    [
      `${displayLocation(target)} restored from ${backupFile}${r.movedAside ? `; the ledger that was there is kept as ${r.movedAside}` : ''}`,
      checkText(target, r.check),
    ].join('\n'),
  )
  return r.check.ok ? 0 : 1
}

/** The restored ledger checked, and its `ledger.restored` entry written, on `path`. */
async function checkAndRecord(path: string, backup: string, movedAside: string | null): Promise<RestoreReport> {
  const b = openBackend({ dbPath: path, busyTimeoutMs: 60_000 })
  try {
    return await restoreReport(b.services, b.actor.name, backup, movedAside)
  } finally {
    await b.closeGracefully()
  }
}

/** A team ledger: restored into its empty database, then checked and recorded there. */
async function restoreTeamLedger(o: RestoreOptions): Promise<RestoreReport> {
  const { movedAside } = restoreFiles(o)
  return checkAndRecord(o.target, o.backup, movedAside)
}

/** A ledger file: the copy checked and given its entry beside the ledger, then put in place whole (ledger-office/restore.ts). */
async function restoreLedgerFile(o: RestoreOptions): Promise<RestoreReport> {
  const staged = stageFileRestore(o)
  let r: RestoreReport
  try {
    r = await checkAndRecord(staged.tmp, o.backup, staged.aside)
    restoreStage('recorded')
  } catch (e) {
    discardFileRestore(staged)
    throw e
  }
  commitFileRestore(staged)
  return r
}

const auditVerify: Command = (ctx) =>
  withBackend(ctx, (b) => {
    options(ctx, {})
    const v = b.services.audit.verify()
    print(ctx, v, () => auditText(v))
    return v.ok ? 0 : 1
  })

const auditExport: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { values } = options(ctx, { out: { type: 'string' } })
    const x = b.services.audit.exportLog()
    const file = resolve(values.out ?? x.fileName)
    try {
      writeFileSync(file, x.content, { flag: 'wx' })
    } catch (e) {
      throw new UsageError(
        `cannot write ${file}: ${(e as NodeJS.ErrnoException).code === 'EEXIST' ? 'it exists already (nothing is overwritten): choose --out' : (e as Error).message}`,
      )
    }
    const v = b.services.audit.verify()
    print(
      ctx,
      { file, entries: v.entries, verification: v },
      () => `${file}: ${int(v.entries)} entries with the checkpoint\n${auditText(v)}`,
    )
    return 0
  })

const auditReanchor: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { values } = options(ctx, { reason: { type: 'string' } })
    if (!values.reason || values.reason.trim().length < 10)
      throw new UsageError('--reason is required (at least 10 characters): why the checkpoint is started afresh')
    const e = b.services.audit.reanchor(b.actor.name, cliReason(values.reason.trim())!)
    const v = b.services.audit.verify()
    print(
      ctx,
      { entry: e, verification: v },
      () => `the checkpoint starts afresh at entry ${e.seq} (logged, with the reason)\n${auditText(v)}`,
    )
    return v.ok ? 0 : 1
  })

export const integrityCommands: Record<string, Command> = {
  'ledger check': ledgerCheck,
  backup,
  restore,
  'audit verify': auditVerify,
  'audit export': auditExport,
  'audit reanchor': auditReanchor,
}

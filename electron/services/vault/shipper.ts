/**
 * Sends what the ledger holds and its vault lacks, in order: each emission's sales after the last
 * sent, then the audit log's entries after the last sent (while the log still extends what the
 * vault received: follows.ts), in chunks, each chunk made durable and
 * the whole round sealed by one signed checkpoint. Only the holder of the vault's writer lock
 * sends; a vault that cannot be reached is retried at the next round, the events waiting in the
 * ledger meanwhile.
 */
import { AppError, because } from '../../contract/errors'
import { auditLine, resumedLine, type Resumption, salesLine, SALES_PER_LINE } from './format'
import { openVaultWriter, type VaultWriter } from './folder'
import { lastAgreed, logProblem } from './follows'
import { takeWriterLock, type WriterLock } from './lock'
import type { VaultSigner } from './signer'
import type { VaultSources } from './sources'

/** Sales read from the ledger at once (lines of SALES_PER_LINE), audit entries likewise. */
export const SHIP_CHUNK = 10_000

export interface Shipper {
  /** Sends for up to `budgetMs` (at least one chunk); the events sent. Throws when the vault cannot be written. */
  round(budgetMs: number): number
  /** The writer's state, once this process has written the vault. */
  writer(): VaultWriter | null
  /** After the log was cut or rewritten below the vault: a line that says so, then the log sent again after the last entry both agree on. */
  resume(by: string, reason: string): Resumption
  /** Whether another process holds the vault's writer lock (and so sends in this one's place). */
  lockedElsewhere(): boolean
  close(): void
}

export function createShipper(folder: string, sources: VaultSources, signer: VaultSigner, now: () => Date): Shipper {
  let lock: WriterLock | null = null
  let writer: VaultWriter | null = null
  let elsewhere = false

  const dropWriter = () => {
    try {
      writer?.close()
    } catch {
      // its folder went away: nothing to close
    }
    writer = null
  }
  const takeLock = (): boolean => {
    if (lock && !lock.touch()) {
      lock = null
      dropWriter()
    }
    lock ??= takeWriterLock(folder)
    elsewhere = lock === null
    return lock !== null
  }

  /** One chunk of sales (emission by emission), else of audit entries; the events appended. */
  function shipChunk(w: VaultWriter, at: string): number {
    const s = w.state
    for (const e of sources.emissions()) {
      const sent = s.sales[e.emission] ?? { count: 0, last: 0 }
      if (sent.count >= e.sold) continue
      const rows = sources.salesAfter(e, sent.last, SHIP_CHUNK)
      if (rows.length === 0) continue
      const lines: string[] = []
      for (let k = 0; k < rows.length; k += SALES_PER_LINE)
        lines.push(salesLine(s.size + lines.length, at, e, rows.slice(k, k + SALES_PER_LINE)))
      w.append(lines, at)
      s.sales[e.emission] = { count: sent.count + rows.length, last: rows[rows.length - 1][0] }
      return rows.length
    }
    // a log cut or rewritten below what the vault holds is not sent on top of it (follows.ts)
    if (s.audit && logProblem(s.audit, sources)) return 0
    const entries = sources.entriesAfter(s.audit?.seq ?? 0, SHIP_CHUNK)
    if (entries.length === 0) return 0
    w.append(
      entries.map((e, k) => auditLine(s.size + k, at, e)),
      at,
    )
    const last = entries[entries.length - 1]
    s.audit = { seq: last.seq, hash: last.hash }
    return entries.length
  }

  return {
    round(budgetMs) {
      if (!takeLock()) return 0
      const started = Date.now()
      let sent = 0
      try {
        writer ??= openVaultWriter(folder)
        const at = now().toISOString()
        for (let n = shipChunk(writer, at); n > 0; n = Date.now() - started < budgetMs ? shipChunk(writer, at) : 0)
          sent += n
        if (sent > 0) writer.commit(signer, at)
      } catch (e) {
        dropWriter() // reopened from its durable state at the next round
        throw e
      }
      return sent
    },
    resume(by, reason) {
      if (!takeLock())
        throw new AppError(
          'CONFLICT',
          'another process (the app) writes the vault: close it, then resume again',
          because('VAULT_WRITTEN_ELSEWHERE'),
        )
      writer ??= openVaultWriter(folder)
      const s = writer.state
      if (!s.audit || !logProblem(s.audit, sources))
        throw new AppError(
          'ILLEGAL_STATE',
          "the ledger's audit log extends what the vault received: there is nothing to resume",
          because('VAULT_NOTHING_TO_RESUME'),
        )
      const at = now().toISOString()
      const agreed = lastAgreed(folder, s.audit.seq, sources)
      const r: Resumption = { by, reason, received: s.audit, agreed, ledgerLast: sources.lastEntry() }
      try {
        writer.append([resumedLine(s.size, at, r)], at)
        s.audit = agreed
        writer.commit(signer, at)
      } catch (e) {
        dropWriter()
        throw e
      }
      return r
    },
    writer: () => writer,
    lockedElsewhere: () => elsewhere,
    close() {
      dropWriter()
      lock?.release()
      lock = null
    },
  }
}

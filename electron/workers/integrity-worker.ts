/**
 * Worker thread: SQLite's integrity check of the ledger on a connection of its own (read-only),
 * so that it runs beside the ledger check's pass over the sales on the calling thread: on two
 * cores the whole check then takes about as long as the longer of the two.
 */
import Database from 'better-sqlite3'
import { parentPort, workerData } from 'node:worker_threads'

const { dbPath } = workerData as { dbPath: string }
try {
  const nativeBinding = process.env.CARATS_SQLITE_BINDING
  const db = new Database(dbPath, { readonly: true, fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) })
  let messages: string[]
  try {
    db.pragma('busy_timeout = 5000')
    messages = (db.pragma('integrity_check(20)') as { integrity_check: string }[]).map((r) => r.integrity_check)
  } finally {
    // closed before the answer: the caller may then change the file's journal mode (a backup's copy)
    db.close()
  }
  parentPort!.postMessage({ messages })
} catch (e) {
  parentPort!.postMessage({ error: e instanceof Error ? e.message : String(e) })
}

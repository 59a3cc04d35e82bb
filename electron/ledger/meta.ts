/** The ledger's facts (ledger_meta): each written once, read by name. */
import type { Db } from './db'

export type MetaName = 'ledger_id' | 'key_fingerprint' | 'audit_keyed_from' | 'rows_sealed' | 'vault_folder'

export function readMeta(db: Db, name: MetaName): string | null {
  const v = db.prepare('SELECT value FROM ledger_meta WHERE name = ?').pluck().get(name)
  return typeof v === 'string' ? v : null
}

/** Writes a fact once; a second write of the same name is refused by the table's triggers. */
export function writeMeta(db: Db, name: MetaName, value: string): void {
  db.prepare('INSERT INTO ledger_meta (name, value) VALUES (?, ?)').run(name, value)
}

/**
 * A new ledger for a test that does not test the opening of one: on PostgreSQL a copy of a
 * database already brought to this app's schema (made once per schema, kept between runs), with a
 * ledger id of its own; a quarter of a second less than running every schema step, for each of
 * the hundreds of ledgers a run makes. On SQLite the same as testLedgerLocation.
 */
import { createHash, randomBytes } from 'node:crypto'
import { openPgLedger } from '../../electron/ledger/pg/open'
import { PG_MIGRATIONS } from '../../electron/ledger/schema/steps.pg'
import {
  createLastingDatabase,
  databaseExists,
  dropLastingDatabase,
  runServerSql,
  testEngine,
  testLedgerLocation,
  type TestLedgerLocation,
} from './ledger-engine'

/**
 * The copy's ledger id made anew (the audit checkpoint and the vault name it): its schema writes
 * it once and its triggers refuse a change, so it is replaced beneath them, as a superuser of the
 * test server may.
 */
const NEW_LEDGER_ID = `SET session_replication_role = replica;
UPDATE ledger_meta SET value = replace(gen_random_uuid()::text, '-', '') WHERE name = 'ledger_id'`

/** A new ledger location in `dir`, as testLedgerLocation gives, its schema already made on PostgreSQL. */
export function freshLedgerLocation(dir: string, name = 'ledger'): TestLedgerLocation {
  if (testEngine() === 'sqlite') return testLedgerLocation(dir, name)
  return testLedgerLocation(dir, name, { template: migratedTemplate(), then: [NEW_LEDGER_ID] })
}

let migrated: string | undefined

/** The database at this app's schema that fresh ledgers copy; built by the first process to need it. */
function migratedTemplate(): string {
  if (migrated) return migrated
  const schema = createHash('sha256')
    .update(PG_MIGRATIONS.map((m) => m.sql).join('\n'))
    .digest('hex')
    .slice(0, 12)
  const name = `carats_schema_${schema}`
  if (!databaseExists(name)) {
    const work = `${name}_${process.pid}_${randomBytes(4).toString('hex')}`
    const url = createLastingDatabase(work)
    try {
      openPgLedger(url).close()
      runServerSql(`ALTER DATABASE ${work} RENAME TO ${name}`)
    } catch (e) {
      // a failed build, or another process put its own in place first: use that one
      dropLastingDatabase(work)
      if (!databaseExists(name)) throw e
    }
  }
  migrated = name
  return name
}

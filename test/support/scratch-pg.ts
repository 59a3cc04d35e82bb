/**
 * A scratch PostgreSQL database for the tests of the team ledger's connection (PgDb) itself: made
 * before the file's tests with an identity row (PgDb's commits count in it) and the tables given,
 * dropped after them. Not a ledger: the services' tests use test/support/ledger-engine.ts.
 */
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll } from 'vitest'
import { PgDb } from '../../electron/ledger/pg/pg-db'

const HOST = '/var/run/postgresql'

export interface ScratchPg {
  /** The database's name. */
  name: string
  /** The connection made before the tests. */
  db: () => PgDb
  /** Another connection to the same database (closed with the file). */
  connect: () => PgDb
}

export function useScratchPg(prefix: string, tablesSql: string): ScratchPg {
  const name = `${prefix}_${process.pid}_${Date.now()}`
  const url = `postgresql:///${name}?host=${HOST}`
  const opened: PgDb[] = []
  const connect = () => {
    const db = new PgDb(name, url)
    opened.push(db)
    return db
  }
  beforeAll(() => {
    execFileSync('createdb', ['-h', HOST, name])
    connect()
      .exec(`CREATE TABLE ledger_identity (application_id BIGINT, schema_version BIGINT, writes BIGINT NOT NULL DEFAULT 0);
      INSERT INTO ledger_identity VALUES (1, 1, 0);
      ${tablesSql}`)
  })
  afterAll(() => {
    for (const db of opened) db.close()
    execFileSync('dropdb', ['-h', HOST, '--if-exists', '--force', name])
  })
  return { name, db: () => opened[0], connect }
}

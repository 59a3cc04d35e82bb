/**
 * The "integrity" part of the ledger check on a team ledger (PostgreSQL), which has no PRAGMA
 * integrity_check: what is checked instead, each said in the report. The schema version is this
 * app's; every table, index, trigger, function and collation that the schema's steps create is
 * there; no index is left invalid or not ready (a failed CREATE INDEX CONCURRENTLY, a REINDEX
 * cut short), no constraint is NOT VALID, no trigger of the ledger's rules is disabled; and, when
 * the amcheck extension is installed in the database, every B-tree index is checked page by page
 * (bt_index_check). The server's own page checksums and WAL are the server's: its administrator's.
 */
import type { LedgerCheckReport } from '../../contract/types'
import type { Db } from '../../ledger/db'
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from '../../ledger/schema/steps.pg'

type Kind = 'table' | 'index' | 'trigger' | 'function' | 'collation'
const plural = (kind: Kind, n: number) => (n === 1 ? kind : kind === 'index' ? 'indexes' : `${kind}s`)
const CREATES: [Kind, RegExp][] = [
  ['table', /CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)/gi],
  ['index', /CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)/gi],
  ['trigger', /CREATE\s+(?:OR\s+REPLACE\s+)?(?:CONSTRAINT\s+)?TRIGGER\s+(\w+)/gi],
  ['function', /CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(\w+)/gi],
  ['collation', /CREATE\s+COLLATION\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)/gi],
]

const DROPS: [Kind, RegExp][] = [
  ['table', /DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?(\w+)/gi],
  ['index', /DROP\s+INDEX\s+(?:IF\s+EXISTS\s+)?(\w+)/gi],
  ['trigger', /DROP\s+TRIGGER\s+(?:IF\s+EXISTS\s+)?(\w+)/gi],
  ['function', /DROP\s+FUNCTION\s+(?:IF\s+EXISTS\s+)?(\w+)/gi],
  ['collation', /DROP\s+COLLATION\s+(?:IF\s+EXISTS\s+)?(\w+)/gi],
]

/**
 * The objects the schema's steps leave, by kind (names as PostgreSQL folds them: lower case): each
 * CREATE and DROP taken in the steps' order, so that what a later step drops is not expected.
 */
export function expectedObjects(sql: string = PG_MIGRATIONS.map((m) => m.sql).join('\n')): Map<Kind, Set<string>> {
  const out = new Map<Kind, Set<string>>()
  for (const [kind, create] of CREATES) {
    const drop = DROPS.find(([k]) => k === kind)![1]
    const events = [
      ...[...sql.matchAll(create)].map((m) => ({ at: m.index, name: m[1].toLowerCase(), made: true })),
      ...[...sql.matchAll(drop)].map((m) => ({ at: m.index, name: m[1].toLowerCase(), made: false })),
    ].sort((a, b) => a.at - b.at)
    const names = new Set<string>()
    for (const e of events) e.made ? names.add(e.name) : names.delete(e.name)
    out.set(kind, names)
  }
  return out
}

const PRESENT: Record<Kind, string> = {
  table:
    "SELECT c.relname FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')",
  index: "SELECT c.relname FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'i'",
  trigger:
    'SELECT t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal',
  function: 'SELECT p.proname FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace',
  collation: 'SELECT collname FROM pg_collation WHERE collnamespace = current_schema()::regnamespace',
}

function missingObjects(db: Db): string[] {
  const problems: string[] = []
  for (const [kind, names] of expectedObjects()) {
    const present = new Set(db.prepare(PRESENT[kind]).pluck().all() as string[])
    const missing = [...names].filter((n) => !present.has(n))
    if (missing.length)
      problems.push(
        `the schema's ${plural(kind, missing.length)} ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing`,
      )
  }
  return problems
}

function brokenObjects(db: Db): string[] {
  const ns = 'current_schema()::regnamespace'
  const invalid = db
    .prepare(
      `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    WHERE c.relnamespace = ${ns} AND NOT (i.indisvalid AND i.indisready) ORDER BY 1`,
    )
    .pluck()
    .all() as string[]
  const unvalidated = db
    .prepare(`SELECT conname FROM pg_constraint WHERE connamespace = ${ns} AND NOT convalidated ORDER BY 1`)
    .pluck()
    .all() as string[]
  const disabled = db
    .prepare(
      `SELECT t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    WHERE c.relnamespace = ${ns} AND NOT t.tgisinternal AND t.tgenabled = 'D' ORDER BY 1`,
    )
    .pluck()
    .all() as string[]
  return [
    ...invalid.map((n) => `index ${n} is not valid (an interrupted build or reindex): REINDEX INDEX ${n}`),
    ...unvalidated.map(
      (n) =>
        `constraint ${n} is NOT VALID (rows written before it were never checked): ALTER TABLE … VALIDATE CONSTRAINT ${n}`,
    ),
    ...disabled.map(
      (n) => `trigger ${n} is disabled: the rule it keeps is not enforced (ALTER TABLE … ENABLE TRIGGER ${n})`,
    ),
  ]
}

/** bt_index_check of every B-tree index, when amcheck is installed; what was done, and any damage found. */
function amcheck(db: Db): { said: string; problems: string[] } {
  if (!db.prepare("SELECT 1 FROM pg_extension WHERE extname = 'amcheck'").pluck().get()) {
    return {
      said: 'amcheck is not installed in this database: the B-tree indexes were not checked page by page (a superuser may CREATE EXTENSION amcheck)',
      problems: [],
    }
  }
  const indexes = db
    .prepare(
      `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
    WHERE c.relnamespace = current_schema()::regnamespace AND a.amname = 'btree' AND i.indisvalid ORDER BY 1`,
    )
    .pluck()
    .all() as string[]
  const check = db.prepare('SELECT bt_index_check(CAST(? AS regclass))')
  const problems: string[] = []
  for (const name of indexes) {
    try {
      check.get(name)
    } catch (e) {
      problems.push(`index ${name} is damaged (amcheck): ${(e as Error).message}; REINDEX INDEX ${name}`)
    }
  }
  return { said: `amcheck: ${indexes.length} B-tree indexes checked page by page`, problems }
}

/** The PostgreSQL ledger's integrity: ok with what was checked, or the problems found. */
export function pgIntegrityOf(db: Db): LedgerCheckReport['integrity'] {
  const version = db.prepare('SELECT schema_version FROM ledger_identity').pluck().get() as number | undefined
  const problems: string[] = []
  if (version !== PG_SCHEMA_VERSION)
    problems.push(`the schema version is ${version ?? 'not recorded'}, this app's is ${PG_SCHEMA_VERSION}`)
  problems.push(...missingObjects(db), ...brokenObjects(db))
  const deep = amcheck(db)
  problems.push(...deep.problems)
  const counts = [...expectedObjects()].map(([kind, names]) => `${names.size} ${plural(kind, names.size)}`).join(', ')
  const checked = [
    `PostgreSQL: schema version ${version ?? '?'}; the schema's ${counts} present; no index invalid, no constraint NOT VALID, no trigger disabled`,
    deep.said,
  ]
  return { engine: 'postgres', ok: problems.length === 0, messages: problems.length ? problems : checked }
}

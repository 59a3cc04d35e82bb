/**
 * "Test the connection" of the Ledger setting screen: tries a team ledger's URL and key file
 * without writing anything. Three steps, each with what it found: the server is reached (as this
 * account, in that database); the database is empty (a new ledger will be made there) or a CARATS
 * ledger of a schema this app opens; the key file is there and is this ledger's key, or can be made.
 *
 * Asynchronous, on a connection of its own with a short timeout: the running ledger and its
 * users are not held up while a far server does not answer.
 */
import { accessSync, constants, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { Client } from 'pg'
import type { LedgerTestResult, LedgerTestStep } from '../../contract/ledger-setting'
import { AppError } from '../../contract/errors'
import { keyFingerprint, readKeyFile } from '../../ledger/keystore'
import { displayLocation } from '../../ledger/location'
import { APPLICATION_ID } from '../../ledger/schema/migration'
import { clientConfig } from '../../ledger/pg/client-config'
import { PG_SCHEMA_VERSION } from '../../ledger/schema/steps.pg'

const CONNECT_TIMEOUT_MS = 5000

type Step = Omit<LedgerTestStep, 'params'> & { params?: LedgerTestStep['params'] }
const step = (s: Step): LedgerTestStep => ({ params: {}, ...s })

/** What the database holds: nothing yet, a ledger (its key's fingerprint, if recorded), or not a ledger. */
type Found = { kind: 'empty' } | { kind: 'ledger'; version: number; fingerprint: string | null } | { kind: 'refused' }

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e))

/** pg's and the network's errors, as the screen says them. */
export function connectProblem(e: unknown): LedgerTestStep['code'] {
  const code = (e as { code?: string }).code
  const text = errorText(e)
  if (code === 'ECONNREFUSED' || code === 'ENOENT') return 'refused'
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'noHost'
  if (code === 'ETIMEDOUT' || /timeout/i.test(text)) return 'timeout'
  if (code === '28P01' || code === '28000') return 'auth'
  if (code === '3D000') return 'noDatabase'
  return 'unreachable'
}

async function connect(url: string): Promise<Client | LedgerTestStep> {
  const client = new Client({
    ...clientConfig(url),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: 'carats-test',
  })
  client.on('error', () => {})
  try {
    await client.connect()
    return client
  } catch (e) {
    await client.end().catch(() => {})
    return step({ step: 'server', ok: false, code: connectProblem(e), params: { detail: errorText(e) } })
  }
}

async function one<T>(client: Client, sql: string): Promise<T | undefined> {
  const r = await client.query({ text: sql, rowMode: 'array' })
  return (r.rows[0] as unknown[] | undefined)?.[0] as T | undefined
}

/** The database's content, read as openPgLedger reads it (open.ts), without making or changing anything. */
async function inspect(client: Client): Promise<{ found: Found; step: LedgerTestStep }> {
  const hasIdentity = await one<boolean>(client, "SELECT to_regclass('ledger_identity') IS NOT NULL")
  if (!hasIdentity) {
    const tables = Number(await one(client, 'SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()'))
    if (tables > 0)
      return {
        found: { kind: 'refused' },
        step: step({ step: 'database', ok: false, code: 'foreign', params: { tables } }),
      }
    return { found: { kind: 'empty' }, step: step({ step: 'database', ok: true, code: 'empty' }) }
  }
  const row = (await client.query('SELECT application_id AS "appId", schema_version AS version FROM ledger_identity'))
    .rows[0] as { appId: unknown; version: unknown } | undefined
  const appId = Number(row?.appId ?? 0)
  const version = Number(row?.version ?? 0)
  if (appId !== APPLICATION_ID)
    return { found: { kind: 'refused' }, step: step({ step: 'database', ok: false, code: 'otherApp' }) }
  if (version > PG_SCHEMA_VERSION) {
    return {
      found: { kind: 'refused' },
      step: step({ step: 'database', ok: false, code: 'newer', params: { version, latest: PG_SCHEMA_VERSION } }),
    }
  }
  const hasMeta = await one<boolean>(client, "SELECT to_regclass('ledger_meta') IS NOT NULL")
  const fingerprint = hasMeta
    ? ((await one<string>(client, "SELECT value FROM ledger_meta WHERE name = 'key_fingerprint'")) ?? null)
    : null
  return {
    found: { kind: 'ledger', version, fingerprint },
    step: step({ step: 'database', ok: true, code: 'ledger', params: { version } }),
  }
}

/** Where a new key file would be written: its folder must be there and writable. */
function canMakeKeyFile(path: string): LedgerTestStep {
  const dir = dirname(path)
  const st = statSync(dir, { throwIfNoEntry: false })
  if (!st?.isDirectory()) return step({ step: 'keyFile', ok: false, code: 'keyDirMissing', params: { path, dir } })
  try {
    accessSync(dir, constants.W_OK)
  } catch {
    return step({ step: 'keyFile', ok: false, code: 'keyDirReadOnly', params: { path, dir } })
  }
  return step({ step: 'keyFile', ok: true, code: 'keyWillBeMade', params: { path } })
}

const KEY_REASONS: Record<string, LedgerTestStep['code']> = { KEY_UNSAFE: 'keyUnsafe', KEY_DAMAGED: 'keyDamaged' }

/** The key file against what the database holds. */
export function checkKeyFile(path: string, found: Found): LedgerTestStep {
  if (found.kind === 'refused') return step({ step: 'keyFile', ok: false, code: 'notChecked', params: { path } })
  let key: Buffer | null
  try {
    key = readKeyFile(path)
  } catch (e) {
    const reason = e instanceof AppError ? e.extras.reason?.key : undefined
    return step({
      step: 'keyFile',
      ok: false,
      code: (reason && KEY_REASONS[reason]) || 'keyDamaged',
      params: { path, detail: errorText(e) },
    })
  }
  const recorded = found.kind === 'ledger' ? found.fingerprint : null
  if (!key)
    return recorded ? step({ step: 'keyFile', ok: false, code: 'keyMissing', params: { path } }) : canMakeKeyFile(path)
  if (!recorded) return step({ step: 'keyFile', ok: true, code: 'keyExists', params: { path } })
  const fingerprint = keyFingerprint(key)
  if (fingerprint !== recorded)
    return step({
      step: 'keyFile',
      ok: false,
      code: 'keyWrong',
      params: { path, fingerprint: fingerprint.slice(0, 16), expected: recorded.slice(0, 16) },
    })
  return step({
    step: 'keyFile',
    ok: true,
    code: 'keyMatches',
    params: { path, fingerprint: fingerprint.slice(0, 16) },
  })
}

/** Tries the URL and the key file; never writes to the database nor makes the key file. */
export async function testTeamLedger(url: string, keyFile: string): Promise<LedgerTestResult> {
  const shown = displayLocation(url)
  const connected = await connect(url)
  if (!(connected instanceof Client)) {
    const rest = [
      step({ step: 'database', ok: false, code: 'notChecked' }),
      step({ step: 'keyFile', ok: false, code: 'notChecked', params: { path: keyFile } }),
    ]
    return { ok: false, url: shown, steps: [connected, ...rest] }
  }
  try {
    const server = step({
      step: 'server',
      ok: true,
      code: 'reached',
      params: { database: connected.database ?? '', user: connected.user ?? '' },
    })
    let db: { found: Found; step: LedgerTestStep }
    try {
      db = await inspect(connected)
    } catch (e) {
      db = {
        found: { kind: 'refused' },
        step: step({ step: 'database', ok: false, code: 'unreadable', params: { detail: errorText(e) } }),
      }
    }
    const steps = [server, db.step, checkKeyFile(keyFile, db.found)]
    return { ok: steps.every((s) => s.ok), url: shown, steps }
  } finally {
    await connected.end().catch(() => {})
  }
}

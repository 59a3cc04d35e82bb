/** The contract through the backend's dispatcher: sign-in, sessions, and who may call what. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rmSync } from 'node:fs'
import type { Backend } from '../../electron/app/backend'
import { CHANNEL_NAMES, type ChannelName } from '../../electron/contract'
import type { Role } from '../../electron/contract/define'
import { feedLine } from '../../electron/services/import'
import { formatSerial } from '../../game-core/serial'
import {
  actor,
  emptyBackend,
  openEmissionBackend,
  PASSWORD,
  samplePlay,
  templatePath,
  tempDir,
  USERS,
} from './ledger-fixture'

describe('sign-in', () => {
  let dir: string
  let b: Backend
  let now = Date.parse('2026-03-02T09:00:00Z')
  beforeAll(() => {
    dir = tempDir('auth')
    b = emptyBackend(dir, { clock: () => new Date(now) })
  })
  afterAll(async () => {
    await b.closeGracefully()
    rmSync(dir, { recursive: true, force: true })
  })

  it('asks for the admin account first, once, then signs in and out with expiring sessions', async () => {
    expect(await b.dispatch('auth:status', {}, null)).toEqual({ ok: true, result: { needsSetup: true, user: null } })
    expect(await b.dispatch('auth:login', { name: 'ada', password: PASSWORD }, null)).toMatchObject({
      ok: false,
      error: { code: 'SETUP_REQUIRED' },
    })
    expect(await b.dispatch('auth:setup', { name: 'ada', password: 'short' }, null)).toMatchObject({
      ok: false,
      error: { code: 'BAD_ARGUMENTS', field: 'password' },
    })
    const setup = await b.dispatch('auth:setup', { name: 'ada', password: PASSWORD }, null)
    expect(setup).toMatchObject({ ok: true, result: { user: { name: 'ada', role: 'admin', active: true } } })
    expect(await b.dispatch('auth:setup', { name: 'eve', password: PASSWORD }, null)).toMatchObject({
      ok: false,
      error: { code: 'CONFLICT' },
    })
    expect(await b.dispatch('auth:login', { name: 'ada', password: 'wrong password' }, null)).toMatchObject({
      ok: false,
      error: { code: 'BAD_CREDENTIALS', message: 'wrong name or password' },
    })
    expect(await b.dispatch('auth:login', { name: 'nobody', password: PASSWORD }, null)).toMatchObject({
      ok: false,
      error: { code: 'BAD_CREDENTIALS', message: 'wrong name or password' },
    })
    const login = (await b.dispatch('auth:login', { name: 'ada', password: PASSWORD }, null)) as {
      ok: true
      result: { token: string }
    }
    const token = login.result.token
    expect(await b.dispatch('auth:status', {}, token)).toMatchObject({
      ok: true,
      result: { needsSetup: false, user: { name: 'ada' } },
    })
    // the password is stored as an scrypt hash with a salt, never in the clear
    const row = b.services.db.prepare('SELECT password_hash, password_salt FROM users').get() as {
      password_hash: Buffer
      password_salt: Buffer
    }
    expect(row.password_hash.length).toBe(64)
    expect(row.password_hash.includes(Buffer.from(PASSWORD))).toBe(false)
    // sessions end after 8 hours without use, and 12 hours after the sign-in whatever the use
    now += 7 * 3600_000
    expect((await b.dispatch('emissions:list', {}, token)).ok).toBe(true)
    now += 5 * 3600_000 - 1
    expect((await b.dispatch('emissions:list', {}, token)).ok).toBe(true)
    now += 1
    expect(await b.dispatch('emissions:list', {}, token)).toMatchObject({ ok: false, error: { code: 'NOT_SIGNED_IN' } })
    const idle = (
      (await b.dispatch('auth:login', { name: 'ada', password: PASSWORD }, null)) as {
        ok: true
        result: { token: string }
      }
    ).result.token
    now += 8 * 3600_000 + 1
    expect(await b.dispatch('emissions:list', {}, idle)).toMatchObject({ ok: false, error: { code: 'NOT_SIGNED_IN' } })
    // logout ends the session; a deactivated user's sessions end too
    const t2 = (
      (await b.dispatch('auth:login', { name: 'ada', password: PASSWORD }, null)) as {
        ok: true
        result: { token: string }
      }
    ).result.token
    const created = (await b.dispatch('users:create', { name: 'suzy', role: 'support', password: PASSWORD }, t2)) as {
      ok: true
      result: { id: number }
    }
    const t3 = (
      (await b.dispatch('auth:login', { name: 'suzy', password: PASSWORD }, null)) as {
        ok: true
        result: { token: string }
      }
    ).result.token
    expect((await b.dispatch('players:search', { query: '' }, t3)).ok).toBe(true)
    expect((await b.dispatch('users:update', { userId: created.result.id, active: false }, t2)).ok).toBe(true)
    expect(await b.dispatch('players:search', { query: '' }, t3)).toMatchObject({
      ok: false,
      error: { code: 'NOT_SIGNED_IN' },
    })
    expect(await b.dispatch('auth:login', { name: 'suzy', password: PASSWORD }, null)).toMatchObject({
      ok: false,
      error: { code: 'BAD_CREDENTIALS', message: /deactivated/ },
    })
    expect(await b.dispatch('users:update', { userId: 1, role: 'auditor' }, t2)).toMatchObject({
      ok: false,
      // with its reason, which crosses the contract for the screens to say in the user's language
      error: {
        code: 'ILLEGAL_STATE',
        message: /last active administrator/,
        reason: { key: 'LAST_ADMIN', params: { name: expect.any(String) } },
      },
    })
    expect(await b.dispatch('auth:logout', {}, t2)).toEqual({ ok: true, result: { ok: true } })
    expect(await b.dispatch('emissions:list', {}, t2)).toMatchObject({ ok: false, error: { code: 'NOT_SIGNED_IN' } })
    const actions = b.services.audit.list({ page: 1, pageSize: 50 }).items.map((a) => a.action)
    expect(actions).toEqual(
      expect.arrayContaining([
        'auth.setup',
        'auth.login',
        'auth.login-failed',
        'user.create',
        'user.update',
        'auth.logout',
      ]),
    )
  })
})

/**
 * Who may call what, written out from the issue and the roles' jobs rather than read from the
 * contract, so a change of access in the contract shows up here. 'x' = allowed.
 */
const A = 'admin',
  O = 'operator',
  S = 'support',
  M = 'manager',
  U = 'auditor',
  R = 'regulator'
/** The staff: every role but the regulator's, which reads the vault and nothing else. */
const ALL = [A, O, S, M, U] as const
const EVERY_ROLE = [...ALL, R] as const
const MATRIX: Record<
  Exclude<ChannelName, 'auth:status' | 'auth:setup' | 'auth:login' | 'auth:logout'>,
  readonly Role[]
> = {
  'emissions:list': ALL,
  'emissions:get': ALL,
  'emissions:create': [A, O],
  'emissions:generate': [A, O],
  'emissions:verify': [A, O, U],
  'emissions:open': [A, O],
  'emissions:close': [A, O],
  'emissions:withdraw': [A, O],
  'emissions:certificate': ALL,
  'emissions:demo': [A, O],
  'ceremony:get': ALL,
  'ceremony:start': [A, O],
  // the custodian: anyone but support (who never touches outcomes), and never who started it
  'ceremony:commit': [A, O, M, U],
  'ceremony:reveal': [A, O, M, U],
  'ceremony:abandon': [A, O],
  'blocks:get': ALL,
  'verifications:latest': ALL,
  'verifications:report': ALL,
  'jobs:get': ALL,
  'jobs:list': ALL,
  'jobs:cancel': [A, O, U],
  'sales:simulate': [A, O],
  'sales:import': [A, O],
  'sales:imports': [A, O, M, U],
  'sales:importReasonsCsv': [A, O, M, U],
  'sales:sampleFeed': [A, O],
  'tickets:get': ALL,
  'tickets:proof': ALL,
  'players:search': [A, S, M, U],
  'players:last': [A, S, U],
  'players:history': [A, S, U],
  'reports:depletion': [A, O, M, U],
  'reports:dashboard': [A, O, M, U],
  'reports:csv': [A, O, M, U],
  'reports:liability': [A, M, U],
  'reports:liabilityCsv': [A, M, U],
  'alerts:list': ALL,
  // claims: never operators; support checks identities, a manager approves, an auditor signs off
  'claims:list': [A, S, M, U],
  'claims:get': [A, S, M, U],
  // the header's search by payment reference: whoever reads claims
  'claims:find': [A, S, M, U],
  'claims:verify': [A, S],
  'claims:approve': [M],
  'claims:signOff': [U],
  'claims:pay': [A, M],
  'claims:reject': [A, S, M, U],
  'claims:csv': [A, S, M, U],
  'claims:flags': [A, S, M, U],
  'claims:expire': [A, M],
  'claims:assign': [A, M],
  'claims:identity': [U],
  'claims:deadlines': [A, S, M, U],
  'parties:list': [A, S, M, U],
  'parties:add': [A, U],
  'parties:remove': [A, U],
  'users:list': [A, U],
  'users:create': [A],
  'users:update': [A],
  'users:unlock': [A],
  'users:confirm': [A, U],
  'auth:changePassword': EVERY_ROLE,
  'audit:list': [A, U],
  'audit:verify': [A, U],
  'audit:csv': [A, U],
  'ledger:status': [A, U],
  'ledger:check': [A, U],
  'ledger:backup': [A],
  // where this workstation's ledger is: the admin's alone
  'settings:ledger': [A],
  'settings:ledgerSet': [A],
  'settings:ledgerTest': [A],
  // the regulator's vault: the admin attaches it; those who answer for the ledger follow it
  'vault:status': [A, M, U, R],
  'vault:attach': [A],
  'vault:reconcile': [A, U],
  'vault:verify': [A, U, R],
  'vault:events': [A, U, R],
  'vault:export': [A, U, R],
  // one's own tasks: every staff role's (services/todo)
  'todo:list': ALL,
}

/** Arguments that pass the schema but touch nothing that exists, so an allowed call changes nothing. */
const HARMLESS: Partial<Record<ChannelName, unknown>> = {
  'emissions:get': { emission: 9999 },
  'emissions:create': { blocks: 0 },
  'emissions:generate': { emission: 9999 },
  'emissions:verify': { emission: 9999 },
  'emissions:open': { emission: 9999 },
  'emissions:close': { emission: 9999 },
  'emissions:withdraw': { emission: 9999, reason: 'role matrix test' },
  'emissions:certificate': { emission: 9999 },
  'emissions:demo': { sales: 0 },
  'blocks:get': { emission: 9999, block: 1 },
  'verifications:latest': { emission: 9999 },
  'verifications:report': { emission: 9999 },
  'jobs:get': { jobId: 'no-such-job' },
  'jobs:cancel': { jobId: 'no-such-job' },
  'sales:simulate': { emission: 9999, sales: 0 },
  'sales:import': { content: 42 },
  'sales:importReasonsCsv': { seq: 999_999 },
  'tickets:get': { serial: '0001-001-0000000-9' },
  'tickets:proof': { serial: '0001-001-0000000-9' },
  'players:last': { player: 'nobody' },
  'players:history': { player: 'nobody' },
  'players:search': { query: 'nobody' },
  'reports:depletion': { emission: 9999 },
  'reports:csv': { report: 'nothing' },
  'reports:dashboard': { extra: 1 },
  'claims:get': { serial: '0001-001-0000000-9' },
  'claims:find': { reference: 'VIR-NONE' },
  'claims:verify': { serial: '0001-001-0000000-9', identity: { document: 'passport', reference: '12AB34567' } },
  'claims:approve': { serial: '0001-001-0000000-9' },
  'claims:signOff': { serial: '0001-001-0000000-9' },
  'claims:pay': { serial: '0001-001-0000000-9', reference: 'VIR-1' },
  'claims:reject': { serial: '0001-001-0000000-9', reason: 'role matrix test' },
  'claims:flags': { player: 'nobody' },
  'claims:expire': { extra: 1 },
  'claims:assign': { serial: '0001-001-0000000-9', to: 'nobody' },
  'claims:identity': { serial: '0001-001-0000000-9', reason: 'role matrix test' },
  'parties:add': { player: 'x', relation: 'cousin', linkedTo: 'y', reason: 'role matrix test' },
  'parties:remove': { id: 9999, reason: 'role matrix test' },
  'users:create': { name: 'x', role: 'king', password: PASSWORD },
  'users:update': { userId: 9999 },
  'users:unlock': { userId: 9999 },
  'users:confirm': { userId: 9999 },
  // too short a new password: refused by the schema, so no password is checked
  'auth:changePassword': { oldPassword: 'x', newPassword: 'short' },
  'ledger:check': { prizes: 'no' },
  'ledger:backup': { folder: '/tmp' },
  // refused by the schema: nothing saved, no server tried
  'settings:ledgerSet': { ledger: 'cloud' },
  'settings:ledgerTest': { url: 'db.example/team', keyFile: 'team.key' },
  'vault:attach': { folder: 42 },
  'vault:reconcile': { day: '2026-02-30' },
  'vault:events': { day: 'today' },
  'vault:export': { from: '2026-02-02', to: '2026-02-01' },
}

describe('the role matrix through the dispatcher', () => {
  let dir: string
  let b: Backend
  const tokens = {} as Record<Role, string>
  beforeAll(async () => {
    await templatePath()
    dir = tempDir('roles')
    b = await openEmissionBackend(dir)
    b.services.users.create(actor('admin'), { name: USERS.regulator, role: R, password: PASSWORD })
    for (const role of EVERY_ROLE) tokens[role] = (await b.services.users.login(USERS[role], PASSWORD)).token
  }, 180_000)
  afterAll(async () => {
    await b.closeGracefully()
    rmSync(dir, { recursive: true, force: true })
  })

  it('covers every channel of the contract', () => {
    const listed = new Set([...Object.keys(MATRIX), 'auth:status', 'auth:setup', 'auth:login', 'auth:logout'])
    expect(CHANNEL_NAMES.filter((c) => !listed.has(c))).toEqual([])
  })

  for (const [channel, allowed] of Object.entries(MATRIX) as [ChannelName, readonly Role[]][]) {
    it(`${channel}: ${allowed.join(', ')}`, async () => {
      const before = b.services.db
        .prepare(
          'SELECT (SELECT count(*) FROM emissions) + (SELECT count(*) FROM sales) + (SELECT count(*) FROM users)',
        )
        .pluck()
        .get()
      for (const role of EVERY_ROLE) {
        const r = await b.dispatch(channel, HARMLESS[channel] ?? {}, tokens[role])
        const forbidden = !r.ok && r.error.code === 'FORBIDDEN'
        expect({ role, forbidden, error: r.ok ? null : r.error.code }).toMatchObject({
          role,
          forbidden: !allowed.includes(role),
        })
        if (forbidden) expect(r.ok ? '' : r.error.message).toBe(`the ${role} role may not use ${channel}`)
      }
      // and nobody may call it without a session
      expect(await b.dispatch(channel, HARMLESS[channel] ?? {}, null)).toMatchObject({
        ok: false,
        error: { code: 'NOT_SIGNED_IN' },
      })
      const after = b.services.db
        .prepare(
          'SELECT (SELECT count(*) FROM emissions) + (SELECT count(*) FROM sales) + (SELECT count(*) FROM users)',
        )
        .pluck()
        .get()
      expect(after).toBe(before)
    })
  }

  it('refuses bad arguments with a message naming the field, before any service runs', async () => {
    const r = await b.dispatch('emissions:create', { blocks: 1000 }, tokens.operator)
    expect(r).toMatchObject({ ok: false, error: { code: 'BAD_ARGUMENTS', field: 'blocks' } })
    expect(b.services.emissions.list()).toHaveLength(1)
    expect(await b.dispatch('tickets:get', { serial: '0001-001-0000000-0' }, tokens.support)).toMatchObject({
      ok: false,
      error: { code: 'INVALID_SERIAL', field: 'serial' },
    })
    expect(await b.dispatch('no:such', {}, tokens.admin)).toMatchObject({
      ok: false,
      error: { code: 'UNKNOWN_CHANNEL' },
    })
  })

  it('serves real data to allowed roles', async () => {
    const r = await b.dispatch('emissions:get', { emission: 1 }, tokens.manager)
    expect(r).toMatchObject({
      ok: true,
      result: { emission: 1, status: 'open', blockList: [{ block: 1, status: 'verified' }] },
    })
    const block = await b.dispatch('blocks:get', { emission: 1, block: 1 }, tokens.support)
    expect(block.ok).toBe(true)
    const tiers = (block as { ok: true; result: { tiers: unknown[] } }).result.tiers
    expect(tiers).toHaveLength(8)
    expect(tiers[0]).toEqual({
      amountCents: 50_000_000,
      initial: 2,
      sold: 0,
      remaining: 2,
      remainingOddsOneIn: 4_008_000,
    })
  })
})

describe('a sales feed through the contract', () => {
  let dir: string
  let b: Backend
  beforeAll(async () => {
    await templatePath()
    dir = tempDir('feed')
    b = await openEmissionBackend(dir)
  }, 180_000)
  afterAll(async () => {
    await b.closeGracefully()
    rmSync(dir, { recursive: true, force: true })
  })

  const feed = (count: number, from = 0) =>
    Array.from({ length: count }, (_, i) =>
      feedLine({
        saleId: `W-${from + i}`,
        serial: formatSerial({ emission: 1, block: 1, unit: from + i }),
        player: `p${(from + i) % 37}`,
        soldAt: Date.now() - 86_400_000 + i,
        stakeCents: 500,
        play: samplePlay(i),
      }),
    )

  it("is imported on a worker thread while the app's thread goes on answering, and every bad line comes back listed", async () => {
    const token = (await b.services.users.login(USERS.operator, PASSWORD)).token
    const order: string[] = []
    const importing = b
      .dispatch('sales:import', { content: feed(2000).join('\n'), fileName: 'day.jsonl' }, token)
      .then((r) => (order.push('import'), r))
    const reading = b.dispatch('emissions:list', {}, token).then((r) => (order.push('read'), r))
    const [imported, read] = await Promise.all([importing, reading])
    expect(read.ok).toBe(true)
    expect(order).toEqual(['read', 'import'])
    expect(imported).toEqual({ ok: true, result: { lines: 2000, imported: 2000, alreadyImported: 0 } })
    // written by the worker's connection, seen by the app's
    expect(b.services.catalog.block(1, 1).units_sold).toBe(2000)
    expect(b.services.players.last('p5').lastUnits[0].serial).toBe(
      formatSerial({ emission: 1, block: 1, unit: 1999 - ((1999 - 5) % 37) }),
    )
    expect(b.services.audit.list({ page: 1, pageSize: 5 }).items[0]).toMatchObject({
      actor: USERS.operator,
      action: 'sales.import',
    })
    expect(b.services.audit.verify().ok).toBe(true)

    // a file with two bad lines: refused whole, both named, nothing stored
    const lines = feed(5, 2000)
    lines[3] = lines[3].replace('"stakeCents":500', '"stakeCents":400')
    lines[4] = lines[4].slice(0, 40)
    const refused = await b.dispatch('sales:import', { content: lines.join('\n') }, token)
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: 'IMPORT_REJECTED',
        details: [
          { line: 4, reason: expect.stringMatching(/stakeCents must be the unit price/) },
          { line: 5, reason: expect.stringMatching(/not valid JSON/) },
        ],
      },
    })
    expect((refused as { ok: false; error: { details: unknown[] } }).error.details).toHaveLength(2)
    expect(b.services.catalog.block(1, 1).units_sold).toBe(2000)
  }, 60_000)
})

/**
 * The load bench's people: staff clients, each its own account, looping over what a desk does
 * (sign in, look a ticket up, a player's last game, the dashboard, a claim's step, sign out)
 * through the host's HTTP api, one call after the other; and an operator uploading feeds one after
 * another. Every call is timed from its sending to its envelope read, and kept with its outcome.
 */
import { formatSerial } from '../../game-core/serial'
import type { Role } from '../../electron/contract/define'
import type { ImportResult, Session } from '../../electron/contract/types'
import type { Feed } from './load-feeds'
import { callApi, probeHost, uploadFeed, type Outcome } from './load-host'
import { LOAD_PASSWORD, type LoadWorld, type StaffAccount } from './load-ledger'
import { seededRng } from '../../electron/services/simulator'

/** One call: what it was, when it started (ms from the run's start), how long it took, what went wrong. */
export interface Sample {
  op: string
  at: number
  ms: number
  error?: string
}

/** One upload: its feed, when it started and ended (ms from the run's start), its outcome. */
export interface Upload {
  feed: Feed
  at: number
  ms: number
  outcome: Outcome<ImportResult>
}

export interface Run {
  base: string
  world: LoadWorld
  /** performance.now() at the run's start. */
  t0: number
  timeoutMs: number
  samples: Sample[]
}

const LAST_GAME: readonly Role[] = ['admin', 'support', 'auditor']
const DASHBOARD: readonly Role[] = ['admin', 'operator', 'manager', 'auditor']
/** After a failed sign-in a person waits a moment before trying again. */
const RETRY_MS = 250

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Calls the channel and keeps the sample. */
async function timed<T>(
  run: Run,
  op: string,
  channel: string,
  args: unknown,
  token: string | null,
): Promise<Outcome<T>> {
  const start = performance.now()
  const r = await callApi<T>(run.base, channel, args, token, run.timeoutMs)
  run.samples.push({ op, at: start - run.t0, ms: performance.now() - start, ...(r.ok ? {} : { error: r.error }) })
  return r
}

/** Signs in (timed); the session's token, or null. */
export async function signIn(run: Run, who: StaffAccount, op = 'sign-in'): Promise<string | null> {
  const r = await timed<Session>(run, op, 'auth:login', { name: who.name, password: LOAD_PASSWORD }, null)
  return r.ok ? r.result.token : null
}

/**
 * The claims the desks step, shared by the clients so that no two take the same claim: support
 * verifies the pending ones (listing more when none is left, as its screen does), a manager
 * approves the verified ones, an administrator pays the approved ones or else verifies.
 */
export class ClaimDesk {
  readonly pending: string[]
  readonly verified: string[] = []
  readonly approved: string[] = []
  /** Claims seen already (stepped, or taken by a client). */
  private readonly seen: Set<string>
  private refill: Promise<void> | null = null
  /** Steps not taken for want of a claim at that step. */
  idle = 0

  constructor(pending: string[]) {
    this.pending = [...pending]
    this.seen = new Set(pending)
  }

  /** More pending claims, from the list support reads (one client lists for all at a time). */
  async listPending(run: Run, token: string): Promise<void> {
    this.refill ??= (async () => {
      const r = await timed<{ items: { serial: string }[] }>(
        run,
        'claims list',
        'claims:list',
        { status: 'pending', order: 'asc', pageSize: 100 },
        token,
      )
      const fresh = r.ok ? r.result.items.map((c) => c.serial).filter((s) => !this.seen.has(s)) : []
      for (const s of fresh) this.seen.add(s)
      this.pending.push(...fresh)
    })().finally(() => (this.refill = null))
    await this.refill
  }
}

async function verify(run: Run, desk: ClaimDesk, token: string, i: number): Promise<void> {
  if (desk.pending.length === 0) await desk.listPending(run, token)
  const serial = desk.pending.shift()
  if (!serial) return void desk.idle++
  const r = await timed(
    run,
    'claim step',
    'claims:verify',
    { serial, identity: { document: 'passport', reference: `LOAD${i}` } },
    token,
  )
  if (r.ok) desk.verified.push(serial)
}

/** The client's claim step, as its role takes one. */
async function claimStep(run: Run, desk: ClaimDesk, role: Role, token: string, i: number): Promise<void> {
  if (role === 'support') return verify(run, desk, token, i)
  if (role === 'manager') {
    const serial = desk.verified.shift()
    if (!serial) return void desk.idle++
    const r = await timed(run, 'claim step', 'claims:approve', { serial }, token)
    if (r.ok) desk.approved.push(serial)
    return
  }
  if (role !== 'admin') return
  const serial = desk.approved.shift()
  if (!serial) return verify(run, desk, token, i)
  await timed(run, 'claim step', 'claims:pay', { serial, reference: `PAY-${serial}` }, token)
}

/** One member of staff at their desk until `untilMs` (from the run's start): each turn a full round of calls. */
export async function staffClient(
  run: Run,
  desk: ClaimDesk,
  who: StaffAccount,
  seed: number,
  untilMs: number,
): Promise<void> {
  const random = seededRng(seed)
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]
  const { world } = run
  for (let turn = 0; performance.now() - run.t0 < untilMs; turn++) {
    const token = await signIn(run, who)
    if (!token) {
      await sleep(RETRY_MS)
      continue
    }
    const unit = Math.floor(random() * world.soldUnits)
    await timed(
      run,
      'ticket',
      'tickets:get',
      { serial: formatSerial({ emission: world.emission, block: 1, unit }) },
      token,
    )
    if (LAST_GAME.includes(who.role))
      await timed(run, 'last game', 'players:last', { player: pick(world.players) }, token)
    if (DASHBOARD.includes(who.role)) await timed(run, 'dashboard', 'reports:dashboard', { includeDemo: false }, token)
    await claimStep(run, desk, who.role, token, seed * 100_000 + turn)
    await timed(run, 'sign-out', 'auth:logout', {}, token)
  }
}

/** A colleague who only signs in and out until `done()` says the uploads are over. */
export async function signingInColleague(run: Run, who: StaffAccount, done: () => boolean): Promise<void> {
  while (!done()) {
    const token = await signIn(run, who)
    if (!token) {
      await sleep(RETRY_MS)
      continue
    }
    await timed(run, 'sign-out', 'auth:logout', {}, token)
  }
}

/**
 * The operator's uploads, one after the other, until `untilMs` (from the run's start) has passed:
 * each time the first of `feeds` not imported yet (`imported`, shared by the parts), as an operator
 * sends again a feed that failed (the block's units sell in order: the next feed would be refused).
 * With `retry` false, each feed is sent once, whatever became of the one before.
 */
export async function uploadInTurn(
  run: Run,
  token: string,
  feeds: Feed[],
  o: { untilMs: number; timeoutMs: number; imported: Set<Feed>; retry: boolean },
): Promise<Upload[]> {
  const uploads: Upload[] = []
  const next = (i: number) => (o.retry ? feeds.find((f) => !o.imported.has(f)) : feeds[i])
  for (let i = 0, feed = next(0); feed && performance.now() - run.t0 < o.untilMs; feed = next(++i)) {
    const start = performance.now()
    const outcome = await uploadFeed<ImportResult>(run.base, feed, token, o.timeoutMs)
    uploads.push({ feed, at: start - run.t0, ms: performance.now() - start, outcome })
    if (outcome.ok) o.imported.add(feed)
    else if (outcome.detail) process.stderr.write(`  upload of ${feed.fileName}: ${outcome.error}: ${outcome.detail}\n`)
  }
  return uploads
}

/** The probe's calls, as the figures name them. */
export const PROBE_OP = 'host alone (no ledger)'
/** How often the probe asks. */
const PROBE_EVERY_MS = 100

/**
 * A call the host answers without the ledger, every 100 ms until `untilMs`: its time is the host's
 * own thread's (slow when that thread is busy or blocked; quick when only the ledger's calls wait).
 */
export async function probeLoop(run: Run, untilMs: number): Promise<void> {
  while (performance.now() - run.t0 < untilMs) {
    const start = performance.now()
    const error = await probeHost(run.base, run.timeoutMs)
    const ms = performance.now() - start
    run.samples.push({ op: PROBE_OP, at: start - run.t0, ms, ...(error ? { error } : {}) })
    await sleep(Math.max(0, PROBE_EVERY_MS - ms))
  }
}

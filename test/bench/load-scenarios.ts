/**
 * The load bench's two parts, each on a host of its own (started on the ledger, stopped after, so
 * that a host the first part left stuck does not spoil the second):
 *   - the scenario: three feeds uploaded one after another while five colleagues sign in
 *     and out, until the last upload ends;
 *   - the staff at their desks for a fixed time while an operator uploads feeds back to back.
 * A part never throws for what the host does: a refused sign-in, a stuck host, a host killed at
 * the part's deadline are its findings, kept in `problems` beside the calls it did make.
 */
import type { Session } from '../../electron/contract/types'
import {
  ClaimDesk,
  probeLoop,
  signingInColleague,
  staffClient,
  uploadInTurn,
  type Run,
  type Upload,
} from './load-clients'
import type { Feed } from './load-feeds'
import { callApi, startChildHost } from './load-host'
import { LOAD_PASSWORD, type LoadLedger, type LoadWorld } from './load-ledger'
import { fmt } from './stats'

export const CALL_TIMEOUT_MS = 30_000
export const UPLOAD_TIMEOUT_MS = 120_000
/** After a part's deadline has killed its host, how long its clients may take to notice. */
const AFTER_KILL_MS = 60_000
/** The scenario: three uploads, five colleagues. */
export const QUICK_FEEDS = 3
export const COLLEAGUES = 5

export interface Scenario {
  run: Run
  uploads: Upload[]
  windowMs: number
  /** What went wrong beside the calls: the operator's sign-in refused, the deadline, the host's end. */
  problems: string[]
  /** CPU seconds used during the part's `seconds` by the host (null: not known) and by this process (the clients). */
  cpu: { host: number | null; clients: number; seconds: number }
}

const ownCpuSeconds = () => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1e6
}

const log = (m: string) => process.stderr.write(`  ${m}\n`)

/** The operator's session for the uploads, or why there is none. */
async function operatorToken(run: Run): Promise<string | null> {
  const r = await callApi<Session>(
    run.base,
    'auth:login',
    { name: run.world.operator.name, password: LOAD_PASSWORD },
    null,
    CALL_TIMEOUT_MS,
  )
  return r.ok ? r.result.token : null
}

const newRun = (base: string, world: LoadWorld): Run => ({
  base,
  world,
  t0: performance.now(),
  timeoutMs: CALL_TIMEOUT_MS,
  samples: [],
})

/** The uploads one after another, the colleagues signing in until the last one ends. */
async function quickScenario(
  base: string,
  world: LoadWorld,
  feeds: Feed[],
  imported: Set<Feed>,
  problems: string[],
): Promise<Omit<Scenario, 'problems' | 'cpu'>> {
  const run = newRun(base, world)
  const token = await operatorToken(run)
  if (!token) problems.push('the operator could not sign in to upload the feeds')
  let done = false
  const colleagues = world.staff.slice(0, COLLEAGUES).map((who) => signingInColleague(run, who, () => done))
  const uploads = token
    ? await uploadInTurn(run, token, feeds, {
        untilMs: Infinity,
        timeoutMs: UPLOAD_TIMEOUT_MS,
        imported,
        retry: false,
      }).finally(() => (done = true))
    : []
  done = true
  await Promise.all(colleagues)
  return { run, uploads, windowMs: performance.now() - run.t0 }
}

/** The staff at their desks for `seconds`, the operator uploading feeds back to back meanwhile. */
async function timedScenario(
  base: string,
  world: LoadWorld,
  feeds: Feed[],
  imported: Set<Feed>,
  seconds: number,
  problems: string[],
): Promise<Omit<Scenario, 'problems' | 'cpu'>> {
  const run = newRun(base, world)
  const token = await operatorToken(run)
  if (!token) problems.push('the operator could not sign in to upload the feeds')
  const windowMs = seconds * 1000
  const desk = new ClaimDesk(world.pendingClaims)
  const clients = [
    ...world.staff.map((who, i) => staffClient(run, desk, who, i + 1, windowMs)),
    probeLoop(run, windowMs),
  ]
  const uploads = token
    ? await uploadInTurn(run, token, feeds, { untilMs: windowMs, timeoutMs: UPLOAD_TIMEOUT_MS, imported, retry: true })
    : []
  await Promise.all(clients)
  if (desk.idle) log(`${desk.idle} claim steps skipped: no claim was waiting at that step`)
  return { run, uploads, windowMs }
}

const timer = (ms: number) => {
  let t: NodeJS.Timeout | undefined
  return { done: new Promise<'late'>((r) => (t = setTimeout(() => r('late'), ms))), cancel: () => clearTimeout(t) }
}

/**
 * A part on a host of its own, within `deadlineMs`: past it, the host is killed and the part's
 * calls end (refused) soon after; a part that still does not end is an error.
 */
async function onHost(
  ledger: LoadLedger,
  what: string,
  deadlineMs: number,
  part: (base: string, problems: string[]) => Promise<Omit<Scenario, 'problems' | 'cpu'>>,
): Promise<Scenario> {
  const host = await startChildHost(ledger)
  const problems: string[] = []
  const deadline = timer(deadlineMs)
  const after = timer(deadlineMs + AFTER_KILL_MS)
  const hostCpu = host.cpuSeconds()
  const clientsCpu = ownCpuSeconds()
  const started = performance.now()
  try {
    const work = part(host.url, problems)
    if ((await Promise.race([work, deadline.done])) === 'late') {
      problems.push(`${what} did not end within ${fmt(deadlineMs / 1000, 0)} s: the host was killed`)
      await host.stop(0)
      if ((await Promise.race([work, after.done])) === 'late')
        throw new Error(`${what} did not end ${AFTER_KILL_MS / 1000} s after its host was killed`)
    }
    const ended = host.exit()
    if (ended && !problems.length)
      problems.push(`the host ended during ${what} (${ended}): ${host.stderrTail().slice(-300)}`)
    const result = await work
    const hostNow = host.cpuSeconds()
    const cpu = {
      host: hostNow === null || hostCpu === null ? null : hostNow - hostCpu,
      clients: ownCpuSeconds() - clientsCpu,
      seconds: (performance.now() - started) / 1000,
    }
    return { ...result, problems, cpu }
  } finally {
    deadline.cancel()
    after.cancel()
    await host.stop()
  }
}

/** The three uploads, each sent once, while the colleagues sign in; `imported` gets those imported. */
export function quickPart(ledger: LoadLedger, world: LoadWorld, feeds: Feed[], imported: Set<Feed>): Promise<Scenario> {
  const three = feeds.slice(0, QUICK_FEEDS)
  return onHost(ledger, 'the three uploads', QUICK_FEEDS * UPLOAD_TIMEOUT_MS + 60_000, (base, problems) =>
    quickScenario(base, world, three, imported, problems),
  )
}

/** The staff for `seconds` while the feeds not imported yet are uploaded in turn (a failed one again). */
export function timedPart(
  ledger: LoadLedger,
  world: LoadWorld,
  feeds: Feed[],
  imported: Set<Feed>,
  seconds: number,
): Promise<Scenario> {
  return onHost(ledger, 'the timed part', seconds * 1000 + UPLOAD_TIMEOUT_MS + 60_000, (base, problems) =>
    timedScenario(base, world, feeds, imported, seconds, problems),
  )
}

/**
 * The browser host of the load bench: the real one, `node electron/host/serve.mjs` in a child
 * process (its worker-thread import and all), on loopback and a free port; and the calls the
 * renderer makes to it (renderer/src/api/transports.ts): POST /api/<channel> with a bearer token
 * and {"args": …}, a feed's bytes as the body with its other arguments in X-Carats-Args. Every
 * call has a time limit; a failure is named by what a user would see (an error's code and
 * message, an HTTP status, a time-out, a refused connection).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ensureBuilt, PROJECT_ROOT } from '../../electron/host/build'
import { BYTES_ARGS_HEADER, BYTES_CONTENT_TYPE } from '../../electron/contract/feed'
import type { Feed } from './load-feeds'
import type { LoadLedger } from './load-ledger'

export interface ChildHost {
  /** http://127.0.0.1:<port>/ */
  url: string
  /** How the child ended, while the bench ran: null while it runs. */
  exit(): string | null
  /** The last lines the host wrote on stderr. */
  stderrTail(): string
  /** CPU seconds the host's process has used so far, all its threads (null where /proc is not). */
  cpuSeconds(): number | null
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>
}

/** Linux's clock ticks per second, in which /proc/<pid>/stat counts CPU time. */
const TICKS = 100

/** utime + stime of a process, from /proc/<pid>/stat (fields 14 and 15, after the command's parenthesis). */
function processCpuSeconds(pid: number | undefined): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / TICKS
  } catch {
    return null
  }
}

const START_MS = 180_000

/** Starts the host on the ledger; ready once it printed its `listening on` line. */
export async function startChildHost(ledger: LoadLedger): Promise<ChildHost> {
  await ensureBuilt({ log: (m) => process.stderr.write(`  ${m}\n`) })
  // e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the host's threads (written when it stops)
  const nodeArgs = (process.env.CARATS_BENCH_HOST_NODE_ARGS ?? '').split(' ').filter(Boolean)
  const args = [
    ...nodeArgs,
    join(PROJECT_ROOT, 'electron', 'host', 'serve.mjs'),
    '--db',
    ledger.location,
    '--key-file',
    ledger.keyFile,
    '--port',
    '0',
  ]
  const child = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, INIT_CWD: PROJECT_ROOT },
  })
  let stderr = ''
  let exit: string | null = null
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)))
  child.once('exit', (code, signal) => (exit = signal ?? `status ${code}`))
  const url = await listeningUrl(child, () => stderr)
  return {
    url,
    exit: () => exit,
    stderrTail: () => stderr,
    cpuSeconds: () => processCpuSeconds(child.pid),
    stop: (graceMs = 10_000) => stopChild(child, graceMs),
  }
}

function listeningUrl(child: ChildProcess, stderr: () => string): Promise<string> {
  let stdout = ''
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the host did not start within ${START_MS / 1000} s:\n${stderr()}`))
    }, START_MS)
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d
      const m = /^listening on (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(stdout)
      if (!m) return
      clearTimeout(timer)
      resolve(m[1])
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`the host exited (${signal ?? code}) before listening:\n${stdout}${stderr()}`))
    })
  })
}

async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}

/** A call's outcome: its result, or what went wrong in a few words (grouped in the figures). */
export type Outcome<T> = { ok: true; result: T } | { ok: false; error: string; detail?: string }

/** An envelope's error as a short label: its code and the start of its message. */
const envelopeError = (e: { code?: string; message?: string }) =>
  `${e.code ?? 'ERROR'} ${(e.message ?? '').slice(0, 60)}`.trim()

function transportError(e: unknown, timeoutMs: number): string {
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } }
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${timeoutMs / 1000} s`
  return `transport ${err.cause?.code ?? err.cause?.message ?? err.message ?? String(e)}`.slice(0, 80)
}

type Reply<T> = { ok?: boolean; result?: T; error?: { code?: string; message?: string; details?: unknown } }

function parsed<T>(text: string): Reply<T> | null {
  try {
    const body = JSON.parse(text) as unknown
    return body !== null && typeof body === 'object' ? (body as Reply<T>) : null
  } catch {
    return null
  }
}

/** The reply read as an envelope; anything else is an HTTP failure named by its status. */
async function envelopeOf<T>(res: Response): Promise<Outcome<T>> {
  const body = parsed<T>(await res.text())
  if (body?.ok === true) return { ok: true, result: body.result as T }
  const status = res.status === 200 ? '' : `HTTP ${res.status} `
  if (body?.ok === false) {
    const details = body.error?.details
    return {
      ok: false,
      error: `${status}${envelopeError(body.error ?? {})}`,
      ...(details === undefined ? {} : { detail: JSON.stringify(details).slice(0, 300) }),
    }
  }
  return { ok: false, error: `HTTP ${res.status}` }
}

/** POST /api/<channel> as the renderer's http transport does, within `timeoutMs`. */
export async function callApi<T>(
  base: string,
  channel: string,
  args: unknown,
  token: string | null,
  timeoutMs: number,
): Promise<Outcome<T>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  try {
    const res = await fetch(new URL(`api/${channel}`, base), {
      method: 'POST',
      headers,
      body: JSON.stringify({ args }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    return await envelopeOf<T>(res)
  } catch (e) {
    return { ok: false, error: transportError(e, timeoutMs) }
  }
}

/** A feed uploaded as the import screen sends it: its bytes as the body, its name and SHA-256 beside them. */
export async function uploadFeed<T>(base: string, feed: Feed, token: string, timeoutMs: number): Promise<Outcome<T>> {
  const body = await readFile(feed.path)
  const headers = {
    'content-type': BYTES_CONTENT_TYPE,
    [BYTES_ARGS_HEADER]: encodeURIComponent(JSON.stringify({ fileName: feed.fileName, sha256: feed.sha256 })),
    authorization: `Bearer ${token}`,
  }
  try {
    const res = await fetch(new URL('api/sales:import', base), {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(timeoutMs),
    })
    return await envelopeOf<T>(res)
  } catch (e) {
    return { ok: false, error: transportError(e, timeoutMs) }
  }
}

/** A channel no contract has: the host refuses it (404) before any backend or ledger is asked. */
const NO_CHANNEL = 'api/bench:probe'

/** Asks the host for a channel it does not have; null when it answered its 404, else what went wrong. */
export async function probeHost(base: string, timeoutMs: number): Promise<string | null> {
  try {
    const res = await fetch(new URL(NO_CHANNEL, base), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(timeoutMs),
    })
    await res.arrayBuffer()
    return res.status === 404 ? null : `HTTP ${res.status}`
  } catch (e) {
    return transportError(e, timeoutMs)
  }
}

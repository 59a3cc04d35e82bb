/**
 * The browser host as the end-to-end tests run it: a child process started as `npm run serve`
 * starts it (`node electron/host/serve.mjs`, which runs the bundled out/main/host.js), on a fresh
 * SQLite file in a temp folder and a free port, ready once it printed `listening on`.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureBuilt, PROJECT_ROOT } from '../../../electron/host/build'

export interface RunningHost {
  /** http://127.0.0.1:<port>/ */
  url: string
  dbPath: string
  /** Everything the host wrote to stderr so far. */
  stderr(): string
  stop(): Promise<void>
}

export interface StartHostOptions {
  /** An existing ledger; by default a new file in a temp folder removed on stop. */
  dbPath?: string
  port?: number
  timeoutMs?: number
}

export async function startHost(opts: StartHostOptions = {}): Promise<RunningHost> {
  await ensureBuilt()
  const dir = opts.dbPath ? null : mkdtempSync(join(tmpdir(), 'carats-e2e-'))
  const dbPath = opts.dbPath ?? join(dir!, 'carats.db')
  const child = spawn(
    process.execPath,
    [join(PROJECT_ROOT, 'electron', 'host', 'serve.mjs'), '--db', dbPath, '--port', String(opts.port ?? 0)],
    { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, INIT_CWD: PROJECT_ROOT } },
  )
  let stdout = ''
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d))

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the host did not start within ${opts.timeoutMs ?? 60_000} ms\n${stderr}`))
    }, opts.timeoutMs ?? 60_000)
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d
      const m = /^listening on (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(stdout)
      if (m) {
        clearTimeout(timer)
        resolve(m[1])
      }
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`the host exited (${signal ?? code}) before listening\n${stdout}${stderr}`))
    })
  })

  return {
    url,
    dbPath,
    stderr: () => stderr,
    stop: async () => {
      await stopChild(child)
      if (dir) rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
  await exited
  clearTimeout(timer)
}

/** Calls the api as the renderer's http transport does: POST /api/<channel>, {args}, bearer token. */
export async function callApi<T = unknown>(
  baseUrl: string,
  channel: string,
  args: unknown = {},
  token: string | null = null,
): Promise<{ ok: true; result: T } | { ok: false; error: { code: string; message: string } }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetch(new URL(`api/${channel}`, baseUrl), {
    method: 'POST',
    headers,
    body: JSON.stringify({ args }),
  })
  return res.json() as never
}

/**
 * What every command of the ledger shares: the ledger's path and the backend opened on it, the
 * options parsed, numbers read and printed, a task followed with its progress.
 */
import { mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname } from 'node:path'
import { parseArgs } from 'node:util'
import { AppError } from '../contract/errors'
import type { JobInfo } from '../contract/types'
import { DB_FILE_NAME, userDataDir } from '../ledger/paths'
import { isPostgresUrl } from '../ledger/location'
import { openBackend, type Backend } from '../app/backend'
import { UsageError, type CommandContext } from './io'

export const eur = (cents: number) =>
  `${(cents / 100).toLocaleString('fr-FR', { maximumFractionDigits: 2 }).replace(/\u202f|\u00a0/g, ' ')} €`
export const int = (n: number) => n.toLocaleString('en-US')

export function ledgerPath(db: string | undefined): string {
  if (db) return db
  const dir = userDataDir({ platform: process.platform, env: process.env, home: homedir() })
  mkdirSync(dir, { recursive: true })
  return `${dir}/${DB_FILE_NAME}`
}

export async function withBackend<T>(ctx: CommandContext, fn: (b: Backend) => Promise<T> | T): Promise<T> {
  const path = ledgerPath(ctx.db)
  if (ctx.db && !isPostgresUrl(path)) mkdirSync(dirname(path), { recursive: true })
  // a command waits up to a minute for another process's transaction (a long import or simulation)
  const backend = openBackend({
    dbPath: path,
    busyTimeoutMs: 60_000,
    actorName: process.env.CARATS_ACTOR?.trim() || undefined,
  })
  try {
    return await fn(backend)
  } finally {
    await backend.closeGracefully()
  }
}

export function options<O extends Record<string, { type: 'string' | 'boolean' }>>(
  ctx: CommandContext,
  opts: O,
  positionals = 0,
) {
  const { values, positionals: pos } = parseArgs({
    args: ctx.args,
    options: opts,
    strict: true,
    allowPositionals: positionals > 0,
  })
  if (pos.length > positionals) throw new UsageError(`unexpected argument ${JSON.stringify(pos[positionals])}`)
  return { values: values as { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string }, pos }
}

export function whole(flag: string, text: string | undefined, min: number, max: number): number {
  if (text === undefined) throw new UsageError(`${flag} is required`)
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} must be a whole number, got ${JSON.stringify(text)}`)
  const n = Number(text)
  if (n < min || n > max) throw new UsageError(`${flag} must be from ${min} to ${max}, got ${n}`)
  return n
}

/** The service's refusal of one argument (BAD_ARGUMENTS on `field`) as a usage error naming the flag: exit 2, the service's reason. */
export function asUsage<T>(flag: string, field: string, fn: () => T): T {
  try {
    return fn()
  } catch (e) {
    if (e instanceof AppError && e.code === 'BAD_ARGUMENTS' && e.extras.field === field)
      throw new UsageError(`${flag}: ${e.message}`)
    throw e
  }
}

export function print(ctx: CommandContext, value: unknown, human: () => string): void {
  ctx.io.out(ctx.json ? JSON.stringify(value) + '\n' : human().replace(/\n?$/, '\n'))
}

/** Waits for a task, with its progress on stderr; Ctrl-C cancels it. */
export async function follow(ctx: CommandContext, b: Backend, job: JobInfo): Promise<JobInfo> {
  const onInt = () => {
    try {
      b.services.jobs.cancel(job.id)
    } catch {
      // already ended
    }
  }
  process.once('SIGINT', onInt)
  const timer = setInterval(() => {
    const j = b.services.jobs.get(job.id)
    ctx.io.progress(`${j.message}: ${j.total > 0 ? ((100 * j.done) / j.total).toFixed(0) : 0} %`)
  }, 250)
  try {
    const end = await b.services.jobs.wait(job.id)
    ctx.io.progress('')
    if (end.state !== 'done')
      throw new AppError(
        end.state === 'cancelled' ? 'CANCELLED' : 'INTERNAL',
        `${end.kind} ${end.state}: ${end.message}`,
      )
    return end
  } finally {
    clearInterval(timer)
    process.removeListener('SIGINT', onInt)
  }
}

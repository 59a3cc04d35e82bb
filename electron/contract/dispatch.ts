/**
 * Server side of the contract, shared by the Electron main process and the browser host:
 * look the channel up, validate the arguments, check the caller's role, run the handler,
 * and turn every failure into an envelope with a stable code. No service runs on bad input.
 */
import type { z } from 'zod'
import { AppError, because, type Envelope, type ErrorReason } from './errors'
import { mayCall, type ParsedArgsOf, type ResultOf, type Role } from './define'
import { contract, type Contract, type ChannelName } from './index'
import { issueTextProblem } from './text-schema'

export interface Caller {
  userId: number
  name: string
  role: Role
  token: string
}

export interface HandlerContext {
  /** null on public channels called without a session. */
  caller: Caller | null
}

export type Handler<K extends ChannelName> = (
  args: ParsedArgsOf<Contract[K]>,
  ctx: HandlerContext,
) => ResultOf<Contract[K]> | Promise<ResultOf<Contract[K]>>

export type Handlers = { [K in ChannelName]: Handler<K> }

export function describeIssues(issues: z.core.$ZodIssue[]): { message: string; field?: string; reason?: ErrorReason } {
  const first = issues[0]
  const field = first && first.path.length > 0 ? first.path.map(String).join('.') : undefined
  const text = first ? issueTextProblem(first) : null
  const message = issues
    .map((i) => {
      const where = i.path.length > 0 ? i.path.map(String).join('.') : 'arguments'
      return `${where}: ${i.message}`
    })
    .join('; ')
  const reason = text
    ? because('TEXT_REFUSED', { field: field ?? '', char: text.char, position: text.position, problem: text.kind })
        .reason
    : undefined
  return { message: `invalid arguments: ${message}`, field, ...(reason && { reason }) }
}

export interface Dispatcher {
  dispatch(channel: string, rawArgs: unknown, token: string | null): Promise<Envelope<unknown>>
}

export function createDispatcher(
  handlers: Handlers,
  resolveSession: (token: string | null) => Caller | null,
  onUnexpected: (channel: string, error: unknown) => void = (c, e) => console.error(`[${c}]`, e),
): Dispatcher {
  return {
    async dispatch(channelName, rawArgs, token) {
      try {
        if (typeof channelName !== 'string' || !Object.hasOwn(contract, channelName)) {
          throw new AppError('UNKNOWN_CHANNEL', `unknown channel ${JSON.stringify(channelName)}`)
        }
        const name = channelName as ChannelName
        const spec = contract[name]
        const caller = resolveSession(token)
        if (spec.access !== 'public' && !caller)
          throw new AppError('NOT_SIGNED_IN', 'your session has ended: sign in again', because('SESSION_ENDED'))
        if (!mayCall(spec.access, caller?.role ?? null)) {
          throw new AppError(
            'FORBIDDEN',
            `the ${caller!.role} role may not use ${name}`,
            because('ROLE_FORBIDDEN', { role: caller!.role, channel: name }),
          )
        }
        const parsed = spec.args.safeParse(rawArgs === undefined ? {} : rawArgs)
        if (!parsed.success) {
          const { message, ...extras } = describeIssues(parsed.error.issues)
          throw new AppError('BAD_ARGUMENTS', message, extras)
        }
        const handler = handlers[name] as (a: unknown, c: HandlerContext) => unknown
        const result = await handler(parsed.data, { caller })
        return { ok: true, result }
      } catch (e) {
        if (e instanceof AppError) return { ok: false, error: e.toData() }
        if (!isBusy(e)) onUnexpected(String(channelName), e)
        const sqliteCode = (e as { code?: unknown })?.code
        if (sqliteCode === 'SQLITE_BUSY' || sqliteCode === 'SQLITE_LOCKED')
          return { ok: false, error: ledgerBusy().toData() }
        if (typeof sqliteCode === 'string' && /^SQLITE_(CORRUPT|NOTADB|IOERR)/.test(sqliteCode)) {
          return {
            ok: false,
            error: {
              code: 'DATABASE',
              message: `the ledger file cannot be read (${(e as Error).message}): nothing was changed; restore it from a backup`,
            },
          }
        }
        return {
          ok: false,
          error: { code: 'INTERNAL', message: `unexpected error: ${e instanceof Error ? e.message : String(e)}` },
        }
      }
    },
  }
}

const isBusy = (e: unknown) => ['SQLITE_BUSY', 'SQLITE_LOCKED'].includes(String((e as { code?: unknown })?.code))

/**
 * A write that waited its whole time for another program's (an import from the command line on
 * this file, another workstation's long transaction): said as such, never as "database is locked".
 */
function ledgerBusy(): AppError {
  const message =
    "the ledger is busy with another program's long write (an import from the command line?): your request could not finish; try again in a moment"
  return new AppError('CONFLICT', message, because('LEDGER_BUSY'))
}

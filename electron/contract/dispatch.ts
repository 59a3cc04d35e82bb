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

/**
 * A failure the ledger words for the staff (ledger/failure.ts), as an AppError, or null. The
 * contract knows no engine: the app passes it in.
 */
export type KnownFailure = (e: unknown) => AppError | null

export function createDispatcher(
  handlers: Handlers,
  resolveSession: (token: string | null) => Caller | null,
  onUnexpected: (channel: string, error: unknown) => void = (c, e) => console.error(`[${c}]`, e),
  knownFailure: KnownFailure = () => null,
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
        const known = knownFailure(e)
        // a wait that ran out is not unexpected; anything else is logged
        if (known?.extras.reason?.key !== 'LEDGER_BUSY') onUnexpected(String(channelName), e)
        if (known) return { ok: false, error: known.toData() }
        return {
          ok: false,
          error: { code: 'INTERNAL', message: `unexpected error: ${e instanceof Error ? e.message : String(e)}` },
        }
      }
    },
  }
}

import type { z } from 'zod'

export const ROLES = ['admin', 'operator', 'support', 'manager', 'auditor', 'regulator'] as const
export type Role = (typeof ROLES)[number]

/**
 * Who may call a channel: `public` needs no session (sign-in, first-start set-up),
 * `signed-in` any user, otherwise the listed roles (admin is not implied).
 */
export type Access = 'public' | 'signed-in' | readonly Role[]

/**
 * How a call uses the ledger (services/import/write-turn.ts, app/read-pool.ts):
 * - `reads` only reads it: a host answers it on one of its reading threads, each with a connection
 *   of its own, never on its own thread (an unsold ticket's inspection is the exception that
 *   writes, one audit entry);
 * - `host-reads` reads it and the host's own memory (the sessions, the running jobs, the ledger
 *   setting): answered on the host's thread, never waiting for a writer;
 * - `writes` writes the ledger and nothing of the host's memory but the caller's own session (a
 *   claim's step, a sign-out): on a team ledger, whose writers go side by side, a host answers it
 *   on one of its threads as it does `reads`; on a SQLite ledger on its own thread, in its turn;
 * - `worker` hands the writing to a worker thread that takes its own turn;
 * - absent, the call may write, and on a SQLite ledger it waits for its turn without holding up the host.
 */
export type LedgerUse = 'reads' | 'writes' | 'host-reads' | 'worker'

export interface Channel<A extends z.ZodType, R> {
  readonly args: A
  readonly access: Access
  readonly ledger?: LedgerUse
  /** Phantom: the result type, carried for the typed client. */
  readonly result?: R
}

/** `channel<Result>()({ args, access })`: the result type is given, the args type comes from the schema. */
export const channel =
  <R>() =>
  <A extends z.ZodType>(spec: { args: A; access: Access; ledger?: LedgerUse }): Channel<A, R> =>
    spec

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyChannel = Channel<z.ZodType, any>
export type ChannelMap = Record<string, AnyChannel>

export type ArgsOf<C extends AnyChannel> = z.input<C['args']>
export type ParsedArgsOf<C extends AnyChannel> = z.output<C['args']>
export type ResultOf<C extends AnyChannel> = C extends Channel<z.ZodType, infer R> ? R : never

export function mayCall(access: Access, role: Role | null): boolean {
  if (access === 'public') return true
  if (role === null) return false
  if (access === 'signed-in') return true
  return access.includes(role)
}

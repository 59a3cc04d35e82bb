/** What a command gets: its arguments, and where to write. Commands return their exit code. */
export interface CliIo {
  /** Writes to stdout; await it when writing a lot (it resolves once the pipe has drained). */
  out(text: string): void | Promise<void>
  err(text: string): void
  /** Progress for people, on stderr, only when stderr is a terminal (keeps logs and pipes clean). */
  progress(text: string): void
}

export interface CommandContext {
  args: string[]
  json: boolean
  /** --db <file> or CARATS_DB, if given. */
  db: string | undefined
  io: CliIo
}

export type Command = (ctx: CommandContext) => Promise<number>

/** A mistake in how the command was called or in its input: printed as one line, exit 2. */
export class UsageError extends Error {}

export function stdio(): CliIo {
  const tty = process.stderr.isTTY === true
  // One wait for the pipe to drain, shared by every write made meanwhile: a listener per write
  // would pile up (and warn) when a command writes many lines without awaiting each.
  let drained: Promise<void> | null = null
  return {
    out: (t) => {
      if (process.stdout.write(t)) return
      drained ??= new Promise<void>((resolve) =>
        process.stdout.once('drain', () => {
          drained = null
          resolve()
        }),
      )
      return drained
    },
    err: (t) => process.stderr.write(t),
    progress: (t) => {
      if (tty) process.stderr.write(`\r\x1b[2K${t}`)
    },
  }
}

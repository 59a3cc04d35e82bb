/**
 * The vault's event lines read back, in log order: every day file of `events/`, oldest first,
 * streamed in pieces (a day of a whole block's sales passes 2 GB, more than one read can hold).
 */
import { closeSync, openSync, readdirSync, readSync } from 'node:fs'
import { join } from 'node:path'
import { EVENT_FILE_PATTERN, EVENTS_DIR } from './format'

const PIECE_BYTES = 16 << 20

export interface LineAt {
  file: string
  /** The line's number in its file, from 1. */
  lineNo: number
}

/** The day files, oldest first. */
export function eventFiles(folder: string): string[] {
  return readdirSync(join(folder, EVENTS_DIR))
    .filter((n) => EVENT_FILE_PATTERN.test(n))
    .sort()
}

/**
 * Calls `onLine` with each line's bytes (without its newline) and its place, in order; stops when
 * it returns false (`takeFile` skips day files by name). A file that does not end with a newline gives its last piece as a line too.
 */
export function forEachLine(
  folder: string,
  onLine: (line: Buffer, at: LineAt) => boolean | void,
  takeFile: (name: string) => boolean = () => true,
): void {
  for (const file of eventFiles(folder).filter(takeFile)) {
    if (readFile(join(folder, EVENTS_DIR, file), file, onLine) === false) return
  }
}

function readFile(path: string, file: string, onLine: (line: Buffer, at: LineAt) => boolean | void): boolean {
  const fd = openSync(path, 'r')
  try {
    let buf = Buffer.allocUnsafe(PIECE_BYTES)
    let held = 0
    let lineNo = 0
    for (;;) {
      if (held === buf.length) buf = Buffer.concat([buf, Buffer.allocUnsafe(buf.length)])
      const n = readSync(fd, buf, held, buf.length - held, null)
      const end = held + n
      let from = 0
      for (let nl = buf.indexOf(10, from); nl !== -1 && nl < end; nl = buf.indexOf(10, from)) {
        if (onLine(buf.subarray(from, nl), { file, lineNo: ++lineNo }) === false) return false
        from = nl + 1
      }
      if (n === 0) {
        if (from < end && onLine(buf.subarray(from, end), { file, lineNo: ++lineNo }) === false) return false
        return true
      }
      buf.copy(buf, 0, from, end)
      held = end - from
    }
  } finally {
    closeSync(fd)
  }
}

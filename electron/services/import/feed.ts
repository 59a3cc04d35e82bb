/**
 * A sales feed as bytes: the file read in place (the command line), the bytes or text the
 * contract's sales:import brings, the checks on the file as a whole (its size, UTF-8), and a
 * feed line written as the platform writes it (fixtures, benchmarks, the simulator's feeds).
 */
import { isUtf8 } from 'node:buffer'
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { FEED_MAX_BYTES } from '../../contract/feed'
import { AppError, because } from '../../contract/errors'
import { describeUtf8Stop, utf8Stop } from '../../contract/utf8'
import type { Play } from '../../../game-core/play'

/** The feed's bytes as a Buffer on the same memory (no copy); text is encoded in UTF-8. */
export function feedBytes(content: string | Uint8Array): Buffer {
  if (typeof content === 'string') return Buffer.from(content, 'utf8')
  if (content instanceof Uint8Array)
    return Buffer.isBuffer(content) ? content : Buffer.from(content.buffer, content.byteOffset, content.byteLength)
  throw new AppError('BAD_ARGUMENTS', 'the feed must be the file’s bytes or its text', { field: 'content' })
}

const mib = (bytes: number) => `${Math.round((bytes / 2 ** 20) * 10) / 10} MiB`

/** The refusal of a feed larger than an import takes (FEED_MAX_BYTES), or null. */
export function tooLargeRefusal(bytes: number, fileName: string | undefined, max = FEED_MAX_BYTES): AppError | null {
  if (bytes <= max) return null
  return new AppError(
    'BAD_ARGUMENTS',
    `${fileName ?? 'the file'} is ${mib(bytes)}, more than the ${mib(max)} an import takes: split it into smaller files`,
    {
      field: 'content',
      ...because('FEED_TOO_LARGE', { mib: Math.ceil(bytes / 2 ** 20), maxMib: Math.floor(max / 2 ** 20) }),
    },
  )
}

/**
 * The refusal of a feed that is not UTF-8, saying where it stops being UTF-8 (its line, the
 * byte in that line and the offset in the file), or null when it is UTF-8. The importer's own
 * check, which the command line also makes before it starts.
 */
export function notUtf8Refusal(content: Uint8Array, fileName: string | undefined): AppError | null {
  if (isUtf8(content)) return null
  const stop = utf8Stop(content)!
  return new AppError(
    'BAD_ARGUMENTS',
    `${fileName ?? 'the file'} is not UTF-8 text: ${describeUtf8Stop(stop)}; a sales feed is JSON lines in UTF-8`,
    {
      field: 'content',
      ...because('FEED_NOT_UTF8', { line: stop.line, byte: stop.byte, offset: stop.offset }),
    },
  )
}

/** The bytes in memory that a worker thread can share. */
export function copyShared(bytes: Uint8Array): Buffer {
  const shared = Buffer.from(new SharedArrayBuffer(bytes.length))
  shared.set(bytes)
  return shared
}

/**
 * A feed file's bytes in memory that the importer's reader thread can share (read as is, not
 * decoded), so that a large feed is not copied before it is read: the command line's way.
 */
export function readFeedFile(path: string): Buffer {
  const fd = openSync(path, 'r')
  try {
    const size = fstatSync(fd).size
    const bytes = Buffer.from(new SharedArrayBuffer(size))
    let at = 0
    while (at < size) {
      const n = readSync(fd, bytes, at, size - at, at)
      if (n === 0) break
      at += n
    }
    return at === size ? bytes : bytes.subarray(0, at)
  } finally {
    closeSync(fd)
  }
}

/** A feed line for a sale, as the platform would send it (fixtures, benchmarks, the simulator's feeds). */
export function feedLine(sale: {
  saleId: string
  serial: string
  player: string
  soldAt: number | string
  stakeCents: number
  play: Play | null
}): string {
  return JSON.stringify({
    saleId: sale.saleId,
    serial: sale.serial,
    player: sale.player,
    soldAt: typeof sale.soldAt === 'number' ? new Date(sale.soldAt).toISOString() : sale.soldAt,
    stakeCents: sale.stakeCents,
    play: sale.play,
  })
}

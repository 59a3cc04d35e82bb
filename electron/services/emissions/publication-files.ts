/**
 * The files of a publication bundle (game-core/DERIVATION.md §11): each block's sales, streamed
 * from the ledger in unit order and written in chunks (a whole block is 8,016,000 rows, never
 * held in memory), and the bundle itself. Each file is written, synced and hashed as it goes.
 */
import { createHash } from 'node:crypto'
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { formatSerial } from '../../../game-core/serial'
import type { Db } from '../../ledger/db'
import { unitKey } from '../../ledger/unit-key'

export const SALES_HEADER = 'serial,soldAt,prizeCents'
/** Text gathered before each write: about 1 MB. */
const CHUNK_CHARS = 1 << 20

export interface WrittenFile {
  name: string
  sha256: string
  bytes: number
}

export interface SalesFile extends WrittenFile {
  rows: number
}

export const salesFileName = (emission: number, block: number) => `sales-${emission}-${block}.csv`

/** A new file (never an existing one overwritten), written piece by piece, hashed and synced. */
class HashedFile {
  private readonly fd: number
  private readonly hash = createHash('sha256')
  bytes = 0

  constructor(readonly path: string) {
    this.fd = openSync(path, 'wx')
  }

  write(text: string): void {
    const buf = Buffer.from(text, 'utf8')
    for (let at = 0; at < buf.length;) at += writeSync(this.fd, buf, at, buf.length - at)
    this.hash.update(buf)
    this.bytes += buf.length
  }

  /** Syncs and closes; returns the file's SHA-256 in hex. */
  finish(): string {
    fsyncSync(this.fd)
    closeSync(this.fd)
    return this.hash.digest('hex')
  }

  abandon(): void {
    try {
      closeSync(this.fd)
    } catch {
      // closed already
    }
  }
}

/**
 * `sales-<E>-<B>.csv`: a header, then one row per sold unit in unit order: its serial as printed,
 * the sale's time in ISO UTC with milliseconds, and the prize the ledger recorded, in cents.
 */
export function writeSalesFile(
  db: Db,
  dir: string,
  emission: number,
  block: number,
  blockSize: number,
  onRows?: (rows: number) => void,
): SalesFile {
  const name = salesFileName(emission, block)
  const first = unitKey(emission, block, 0)
  const rows = db
    .prepare('SELECT unit_key, sold_at, prize_cents FROM sales WHERE unit_key >= ? AND unit_key < ? ORDER BY unit_key')
    .raw()
  const file = new HashedFile(join(dir, name))
  try {
    let text = SALES_HEADER + '\n'
    let count = 0
    for (const [key, soldAt, prize] of rows.iterate(first, first + blockSize) as Iterable<[number, number, number]>) {
      text += `${formatSerial({ emission, block, unit: key - first }, blockSize)},${new Date(soldAt).toISOString()},${prize}\n`
      count++
      if (text.length >= CHUNK_CHARS) {
        file.write(text)
        text = ''
        onRows?.(count)
      }
    }
    file.write(text)
    return { name, rows: count, bytes: file.bytes, sha256: file.finish() }
  } catch (e) {
    file.abandon()
    throw e
  }
}

/** bundle.json: two-space indented JSON, a new file. */
export function writeBundleFile(dir: string, bundle: unknown): WrittenFile {
  const file = new HashedFile(join(dir, 'bundle.json'))
  try {
    file.write(JSON.stringify(bundle, null, 2) + '\n')
    return { name: 'bundle.json', bytes: file.bytes, sha256: file.finish() }
  } catch (e) {
    file.abandon()
    throw e
  }
}

/**
 * The parser of PostgreSQL's binary COPY of bigint columns: rows cut anywhere across the
 * stream's pieces, NULLs, negative and large values, and a COPY that is not what it should be.
 */
import { describe, expect, it } from 'vitest'
import { BinaryColumns, type ColumnChunk } from './binary-columns'

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1')

/** A binary COPY of `rows` as PostgreSQL writes it (null for NULL), with an optional header extension. */
function copyOf(rows: (number | null)[][], extension = 0, trailer = true): Buffer {
  const parts = [SIGNATURE, u32(0), u32(extension), Buffer.alloc(extension)]
  for (const row of rows) {
    parts.push(i16(row.length))
    for (const v of row) parts.push(v === null ? i32(-1) : Buffer.concat([i32(8), i64(v)]))
  }
  if (trailer) parts.push(i16(-1))
  return Buffer.concat(parts)
}
const u32 = (v: number) => Buffer.from([v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255])
const i32 = (v: number) => ((b) => (b.writeInt32BE(v), b))(Buffer.alloc(4))
const i16 = (v: number) => ((b) => (b.writeInt16BE(v), b))(Buffer.alloc(2))
const i64 = (v: number) => ((b) => (b.writeBigInt64BE(BigInt(v)), b))(Buffer.alloc(8))

/** The rows parsed from `pieces`, with the chunks' sizes. */
function parse(pieces: Buffer[], width: number, chunkRows: number) {
  const chunks: ColumnChunk[] = []
  const parser = new BinaryColumns(width, chunkRows, (c) => chunks.push(c))
  for (const p of pieces) parser.push(p)
  parser.end()
  const rows: (number | null)[][] = []
  for (const c of chunks) {
    for (let r = 0; r < c.rows; r++) rows.push(c.columns.map((col) => (Number.isNaN(col[r]) ? null : col[r])))
  }
  return { rows, sizes: chunks.map((c) => c.rows) }
}

const ROWS = [
  [1, 0, 2 ** 53 - 1],
  [-1, null, -(2 ** 53 - 1)],
  [2 ** 32, 2 ** 32 - 1, null],
  [null, null, null],
  [1_765_000_000_000, 500_000_00, 7],
]

describe('binary COPY of bigint columns', () => {
  it('reads every value, NULLs and negatives included, in chunks of the size asked', () => {
    const { rows, sizes } = parse([copyOf(ROWS, 5)], 3, 2)
    expect(rows).toEqual(ROWS)
    expect(sizes).toEqual([2, 2, 1])
  })

  it('gives the same rows whatever the byte at which the stream is cut, in two or in one-byte pieces', () => {
    const bytes = copyOf(ROWS, 3)
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(parse([bytes.subarray(0, cut), bytes.subarray(cut)], 3, 4).rows).toEqual(ROWS)
    }
    const bytewise = [...bytes].map((b) => Buffer.from([b]))
    expect(parse(bytewise, 3, 3).rows).toEqual(ROWS)
  })

  it('reads an empty result as no chunk at all', () => {
    expect(parse([copyOf([])], 3, 2)).toEqual({ rows: [], sizes: [] })
  })

  it('refuses a COPY cut short: the rows would be incomplete', () => {
    const parser = new BinaryColumns(3, 2, () => {})
    parser.push(copyOf(ROWS, 0, false))
    expect(() => parser.end()).toThrow(/ended before its trailer/)
  })

  it('refuses what is not a binary COPY, a row of another width, and a column that is not a bigint', () => {
    expect(() => new BinaryColumns(3, 2, () => {}).push(Buffer.from('1\t2\t3\n'.repeat(4)))).toThrow(/signature/)
    expect(() => new BinaryColumns(2, 2, () => {}).push(copyOf(ROWS))).toThrow(/has 3 columns, not 2/)
    const int4 = Buffer.concat([SIGNATURE, u32(0), u32(0), i16(1), i32(4), i32(7), i16(-1)])
    expect(() => new BinaryColumns(1, 2, () => {}).push(int4)).toThrow(/4 bytes, not a bigint's 8/)
  })
})

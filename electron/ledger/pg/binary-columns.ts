/**
 * PostgreSQL's binary COPY of bigint columns (`COPY (SELECT …) TO STDOUT (FORMAT binary)`) read
 * into columns of numbers, a chunk of rows at a time: one Float64Array per column, NaN for NULL.
 * The bulk reads of the team ledger (the ledger check's pass over every sale) take their rows this
 * way, with no string or object made per value. The format: an 11-byte signature, a flags word, a
 * header extension, then per row a 16-bit field count (-1 ends the data) and per field a 32-bit
 * length (-1 for NULL) and its bytes; a bigint is 8 bytes, big-endian, two's complement.
 */

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1')
const HEADER = SIGNATURE.length + 8
const TWO_32 = 2 ** 32

export interface ColumnChunk {
  columns: Float64Array[]
  rows: number
}

export class BinaryColumns {
  private pending: Buffer = Buffer.alloc(0)
  private headerRead = false
  private ended = false
  private columns: Float64Array[] = []
  private rows = 0

  constructor(
    private readonly width: number,
    private readonly chunkRows: number,
    private readonly onChunk: (chunk: ColumnChunk) => void,
  ) {
    this.fresh()
  }

  /** The next bytes of the COPY, cut anywhere: each full chunk of rows goes to onChunk. */
  push(bytes: Buffer): void {
    const buf = this.pending.length ? Buffer.concat([this.pending, bytes]) : bytes
    let o = 0
    if (!this.headerRead) {
      if (buf.length < HEADER) return void (this.pending = buf)
      o = this.header(buf)
      if (o < 0) return void (this.pending = buf)
    }
    o = this.tuples(buf, o)
    this.pending = buf.subarray(o)
  }

  /** The COPY has ended: the last rows go to onChunk; a COPY cut short is an error. */
  end(): void {
    if (!this.ended) throw new Error('the binary COPY ended before its trailer: the rows read are incomplete')
    if (this.rows > 0) this.flush()
  }

  /** Where the rows start, or -1 while the header's extension is not all here. */
  private header(buf: Buffer): number {
    if (!buf.subarray(0, SIGNATURE.length).equals(SIGNATURE))
      throw new Error('not a binary COPY: its signature is missing')
    const start = HEADER + buf.readUInt32BE(SIGNATURE.length + 4)
    if (buf.length < start) return -1
    this.headerRead = true
    return start
  }

  /** The whole rows of buf from o, into the columns; returns where the first incomplete row starts. */
  private tuples(buf: Buffer, o: number): number {
    const w = this.width
    const rowBytes = 2 + w * 12
    while (!this.ended && o + 2 <= buf.length) {
      const fields = buf.readInt16BE(o)
      if (fields === -1) {
        this.ended = true
        return o + 2
      }
      if (fields !== w) throw new Error(`a row of the binary COPY has ${fields} columns, not ${w}`)
      // a row with a NULL is shorter than rowBytes: read it field by field
      if (o + rowBytes > buf.length && !this.hasRow(buf, o)) break
      o = this.row(buf, o + 2)
    }
    return o
  }

  /** Whether the row at o is all in buf (it has NULLs, so it is shorter than w full fields). */
  private hasRow(buf: Buffer, o: number): boolean {
    let p = o + 2
    for (let c = 0; c < this.width; c++) {
      if (p + 4 > buf.length) return false
      const len = buf.readInt32BE(p)
      p += 4 + Math.max(0, len)
      if (p > buf.length) return false
    }
    return true
  }

  private row(buf: Buffer, p: number): number {
    const r = this.rows
    for (let c = 0; c < this.width; c++) {
      const len = buf.readInt32BE(p)
      p += 4
      if (len === -1) {
        this.columns[c][r] = NaN
        continue
      }
      if (len !== 8) throw new Error(`column ${c + 1} of the binary COPY is ${len} bytes, not a bigint's 8`)
      this.columns[c][r] = buf.readInt32BE(p) * TWO_32 + buf.readUInt32BE(p + 4)
      p += 8
    }
    if (++this.rows === this.chunkRows) this.flush()
    return p
  }

  private flush(): void {
    const rows = this.rows
    const columns = rows === this.chunkRows ? this.columns : this.columns.map((col) => col.slice(0, rows))
    this.fresh()
    this.onChunk({ columns, rows })
  }

  private fresh(): void {
    this.columns = Array.from({ length: this.width }, () => new Float64Array(this.chunkRows))
    this.rows = 0
  }
}

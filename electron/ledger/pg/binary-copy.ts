/**
 * Rows written in PostgreSQL's binary COPY format (`COPY t (…) FROM STDIN (FORMAT binary)`), the
 * bulk path of the team ledger's writes (sales-rows.ts): one buffer per COPY, filled in place with
 * no string made per value, and handed to the connection's thread without a copy (bridge.ts post).
 * The server reads integers and bytes as they are, where the text format had it parse digits and
 * hexadecimal. The format (PostgreSQL's COPY page, "Binary Format"): an 11-byte signature, a flags
 * word and a header extension length (both 0), then per row a 16-bit field count and per field a
 * 32-bit length (-1 for NULL) and its bytes, and a 16-bit -1 at the end. A bigint is 8 bytes,
 * big-endian, two's complement; text is its UTF-8 bytes; bytea its bytes.
 */

/** How a column's values are written: the column's type on the server must be the same. */
export type CopyKind = 'int8' | 'text' | 'bytea'

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1')
const HEADER = SIGNATURE.length + 8
const TRAILER = 2
const TWO_32 = 2 ** 32

/** The bytes a value takes after its length word. */
function valueBytes(kind: CopyKind, v: unknown): number {
  if (v === null || v === undefined) return 0
  if (kind === 'int8') return 8
  if (kind === 'text') return Buffer.byteLength(v as string)
  return (v as Uint8Array).byteLength
}

/** Why a value cannot go into its column, said before anything is sent. */
function refuse(kind: CopyKind, v: unknown, column: number): never {
  const what = typeof v === 'number' ? `the number ${v}` : `a ${typeof v}`
  throw new TypeError(`column ${column + 1} of a binary COPY takes ${kind}, not ${what}`)
}

function checkValue(kind: CopyKind, v: unknown, column: number): void {
  if (v === null || v === undefined) return
  if (kind === 'int8' ? !Number.isSafeInteger(v) : kind === 'text' ? typeof v !== 'string' : !(v instanceof Uint8Array)) refuse(kind, v, column)
}

/**
 * Rows `from`…`from + count - 1` of `values` (the columns of each row in order, `kinds.length`
 * each; null or undefined for NULL), as one whole binary COPY: header, rows, trailer.
 */
export function binaryCopy(kinds: readonly CopyKind[], values: readonly unknown[], from: number, count: number): Buffer {
  const width = kinds.length
  let size = HEADER + TRAILER + count * (2 + 4 * width)
  for (let i = 0; i < count; i++) {
    const at = (from + i) * width
    for (let c = 0; c < width; c++) {
      const v = values[at + c]
      checkValue(kinds[c], v, c)
      size += valueBytes(kinds[c], v)
    }
  }
  const buf = Buffer.allocUnsafeSlow(size)
  SIGNATURE.copy(buf, 0)
  buf.writeUInt32BE(0, SIGNATURE.length)
  buf.writeUInt32BE(0, SIGNATURE.length + 4)
  let o = HEADER
  for (let i = 0; i < count; i++) {
    const at = (from + i) * width
    buf.writeInt16BE(width, o)
    o += 2
    for (let c = 0; c < width; c++) o = writeValue(buf, o, kinds[c], values[at + c])
  }
  buf.writeInt16BE(-1, o)
  return buf
}

/** One field (its length, then its bytes) at `o`; returns where the next starts. */
function writeValue(buf: Buffer, o: number, kind: CopyKind, v: unknown): number {
  if (v === null || v === undefined) {
    buf.writeInt32BE(-1, o)
    return o + 4
  }
  if (kind === 'int8') {
    const n = v as number
    buf.writeInt32BE(8, o)
    // the high word, signed, and the low word: two's complement for any safe integer
    buf.writeInt32BE(Math.floor(n / TWO_32), o + 4)
    buf.writeUInt32BE(n >>> 0, o + 8)
    return o + 12
  }
  if (kind === 'text') {
    const n = buf.write(v as string, o + 4, 'utf8')
    buf.writeInt32BE(n, o)
    return o + 4 + n
  }
  const bytes = v as Uint8Array
  buf.writeInt32BE(bytes.byteLength, o)
  buf.set(bytes, o + 4)
  return o + 4 + bytes.byteLength
}

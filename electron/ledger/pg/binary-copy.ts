/**
 * Rows written in PostgreSQL's binary COPY format (`COPY t (…) FROM STDIN (FORMAT binary)`), the
 * bulk path of the team ledger's writes (sales/rows.ts): one buffer per COPY, filled in place with
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

/** The kinds as small integers, for the loops below. */
const INT8 = 0
const TEXT = 1
const BYTEA = 2
const CODES: Record<CopyKind, number> = { int8: INT8, text: TEXT, bytea: BYTEA }

/** Why a value cannot go into its column, said before anything is sent. */
function refuse(kind: CopyKind, v: unknown, column: number): never {
  const what = typeof v === 'number' ? `the number ${v}` : `a ${typeof v}`
  throw new TypeError(`column ${column + 1} of a binary COPY takes ${kind}, not ${what}`)
}

/** The bytes a value takes after its length word; a value of the wrong kind refused. */
function valueBytes(code: number, v: unknown, kinds: readonly CopyKind[], column: number): number {
  if (v === null || v === undefined) return 0
  if (code === INT8) {
    if (!Number.isSafeInteger(v)) refuse(kinds[column], v, column)
    return 8
  }
  if (code === TEXT) {
    if (typeof v !== 'string') refuse(kinds[column], v, column)
    return asciiLength(v) ?? Buffer.byteLength(v)
  }
  if (!(v instanceof Uint8Array)) refuse(kinds[column], v, column)
  return v.byteLength
}

/** A short string's length when it is all ASCII (one byte a character), else null. */
function asciiLength(s: string): number | null {
  if (s.length > 64) return null
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return null
  return s.length
}

/**
 * Rows `from`…`from + count - 1` of `values` (the columns of each row in order, `kinds.length`
 * each; null or undefined for NULL), as one whole binary COPY: header, rows, trailer.
 */
export function binaryCopy(
  kinds: readonly CopyKind[],
  values: readonly unknown[],
  from: number,
  count: number,
): Buffer {
  const width = kinds.length
  const codes = kinds.map((k) => CODES[k])
  let size = HEADER + TRAILER + count * (2 + 4 * width)
  const end = (from + count) * width
  for (let at = from * width, c = 0; at < end; at++) {
    size += valueBytes(codes[c], values[at], kinds, c)
    if (++c === width) c = 0
  }
  const buf = Buffer.allocUnsafeSlow(size)
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength)
  SIGNATURE.copy(buf, 0)
  view.setUint32(SIGNATURE.length, 0)
  view.setUint32(SIGNATURE.length + 4, 0)
  let o = HEADER
  for (let at = from * width; at < end;) {
    view.setInt16(o, width)
    o += 2
    for (let c = 0; c < width; c++) o = writeValue(buf, view, o, codes[c], values[at++])
  }
  view.setInt16(o, -1)
  return buf
}

/** One field (its length, then its bytes) at `o`; returns where the next starts. */
function writeValue(buf: Buffer, view: DataView, o: number, code: number, v: unknown): number {
  if (v === null || v === undefined) {
    view.setInt32(o, -1)
    return o + 4
  }
  if (code === INT8) {
    const n = v as number
    view.setInt32(o, 8)
    // the high word, signed, and the low word: two's complement for any safe integer
    view.setInt32(o + 4, Math.floor(n / TWO_32))
    view.setUint32(o + 8, n >>> 0)
    return o + 12
  }
  if (code === TEXT) {
    const s = v as string
    const n = asciiLength(s) === null ? buf.write(s, o + 4, 'utf8') : writeAscii(buf, o + 4, s)
    view.setInt32(o, n)
    return o + 4 + n
  }
  const bytes = v as Uint8Array
  view.setInt32(o, bytes.byteLength)
  buf.set(bytes, o + 4)
  return o + 4 + bytes.byteLength
}

/** An ASCII string's bytes at `o`; how many. */
function writeAscii(buf: Buffer, o: number, s: string): number {
  for (let i = 0; i < s.length; i++) buf[o + i] = s.charCodeAt(i)
  return s.length
}

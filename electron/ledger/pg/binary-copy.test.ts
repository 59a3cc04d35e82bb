/**
 * The binary COPY writer of the team ledger's bulk writes: what the server stores is what was
 * written (integers of every sign and size a safe integer takes, NULLs, text with the characters
 * the text format had to escape, bytes of every value), a value of the wrong kind is refused
 * before anything is sent, and the buffer handed to the connection's thread is not a slice of
 * memory the caller still uses.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useScratchPg } from '../../../test/support/scratch-pg'
import { binaryCopy, type CopyKind } from './binary-copy'
import type { PgDb } from './pg-db'

const scratch = useScratchPg(
  'carats_bincopy',
  'CREATE TABLE r (id BIGINT PRIMARY KEY, label TEXT COLLATE "C", n BIGINT, bytes BYTEA);',
)
let db: PgDb
beforeAll(() => {
  db = scratch.db()
})

const KINDS: CopyKind[] = ['int8', 'text', 'int8', 'bytea']
const COPY = 'COPY r (id, label, n, bytes) FROM STDIN (FORMAT binary)'
const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i))

const ROWS: unknown[][] = [
  [1, 'plain', 0, Buffer.from([1, 2, 3])],
  [2, 'tab\there, line\nend, back\\slash, \\N, carriage\rreturn', -1, ALL_BYTES],
  [3, 'été 500 000 €, 💎', 2 ** 53 - 1, Buffer.alloc(0)],
  [4, null, -(2 ** 53 - 1), null],
  [5, '', 2 ** 32, ALL_BYTES.subarray(250)],
  [6, 'x', -(2 ** 32), ALL_BYTES.subarray(0, 1)],
  [7, 'y', 2 ** 32 - 1, null],
  [8, 'z', -(2 ** 31) - 1, null],
  // the writer's one-byte path takes short ASCII text; longer or wider text goes through UTF-8
  [31, 'a'.repeat(64), 1, null],
  [32, 'b'.repeat(65), 1, null],
  [33, `${'c'.repeat(70)}é`, 1, null],
  [34, 'd\u007f\u0080', 1, null],
]

describe('a binary COPY written by the app', () => {
  it('stores every value as it was given', () => {
    db.transaction(() => {
      db.postCopyIn(COPY, binaryCopy(KINDS, ROWS.flat(), 0, 5))
      db.postCopyIn(COPY, binaryCopy(KINDS, ROWS.flat(), 5, ROWS.length - 5))
      db.flush()
    }).immediate()
    const stored = db.prepare('SELECT id, label, n, bytes FROM r ORDER BY id').raw().all() as unknown[][]
    expect(stored.map((r) => [r[0], r[1], r[2], r[3] === null ? null : [...(r[3] as Buffer)]])).toEqual(
      ROWS.map((r) => [r[0], r[1], r[2], r[3] === null ? null : [...(r[3] as Buffer)]]),
    )
  })

  it('refuses a value of the wrong kind before anything is sent', () => {
    const bad: [unknown[], RegExp][] = [
      [[10, 'a', 1.5, null], /column 3 of a binary COPY takes int8, not the number 1.5/],
      [[10, 'a', 2 ** 53, null], /takes int8/],
      [[10, 'a', '12', null], /column 3 of a binary COPY takes int8, not a string/],
      [[10, 7, 1, null], /column 2 of a binary COPY takes text, not the number 7/],
      [[10, 'a', 1, 'bytes'], /column 4 of a binary COPY takes bytea, not a string/],
    ]
    for (const [row, why] of bad) expect(() => binaryCopy(KINDS, row, 0, 1)).toThrow(why)
    expect(db.prepare('SELECT count(*) FROM r WHERE id = 10').pluck().get()).toBe(0)
  })

  it('makes a buffer of its own, which the connection thread may take', () => {
    const buf = binaryCopy(KINDS, [20, 'own', 1, ALL_BYTES], 0, 1)
    expect(buf.byteOffset).toBe(0)
    expect(buf.buffer.byteLength).toBe(buf.byteLength)
    db.transaction(() => {
      db.postCopyIn(COPY, buf)
      db.flush()
    }).immediate()
    // handed over, not copied: the caller's view of it is gone
    expect(buf.byteLength).toBe(0)
    expect(db.prepare('SELECT label FROM r WHERE id = 20').pluck().get()).toBe('own')
  })

  it('leaves a slice of shared memory with the caller (copied, not taken)', () => {
    const pool = Buffer.from('shared pool memory')
    const whole = binaryCopy(KINDS, [21, 'copied', 1, null], 0, 1)
    const slice = Buffer.concat([pool, whole]).subarray(pool.length)
    db.transaction(() => {
      db.postCopyIn(COPY, slice)
      db.flush()
    }).immediate()
    expect(slice.byteLength).toBe(whole.byteLength)
    expect(db.prepare('SELECT label FROM r WHERE id = 21').pluck().get()).toBe('copied')
  })
})

/**
 * A fast reader for the sales feed's usual lines, on the feed's bytes. JSON.parse of a
 * 1,775-byte line with its 30 event objects costs more than everything else the importer does for
 * it; this reader walks the bytes once, takes the events straight into their packed form
 * (play-codec.ts) and makes no object per event. An event written in the usual order
 * (`{"t":…,"zone":…,"cell":…,"gesture":…}`) is matched four bytes at a time; any other order is
 * read key by key.
 *
 * It reads only a strict subset of JSON: the six fields of a line, each once, in any order, no
 * whitespace; strings without escapes or control characters (DEL included); whole numbers written in plain
 * digits; a play with `mode`, `status` and `events`, each once; events with `t`, `zone`, `cell`
 * and `gesture`, each once, with values that the rules allow in form. Anything else (including
 * every line that is wrong) makes it answer null, and the importer then reads the line with
 * JSON.parse and the zod schema, which give the reasons. So a line it reads would have been read
 * the same by JSON.parse, passed the schema and the events' field check: it never decides that a
 * line is bad, and never accepts one that the full path refuses. The bytes must be UTF-8 (the
 * importer checks the whole feed first).
 */

export interface FastFeedLine {
  saleId: string
  serial: string
  player: string
  soldAt: string
  stakeCents: number
  /** The play as the ledger stores it, or null for `"play": null`. Its rules are checked by `packFastPlay`. */
  play: FastPlay | null
}

/** A play read from a line: mode and status, and its events in scratch arrays until packed. */
export interface FastPlay {
  auto: boolean
  complete: boolean
  count: number
}

const MAX_EVENTS = 64
const MAX_TEXT = 64

// scratch for one line's events (lines are read one at a time)
const T = new Float64Array(MAX_EVENTS)
const ZONE_YOURS = new Uint8Array(MAX_EVENTS)
const CELL = new Uint8Array(MAX_EVENTS)
const DRAG = new Uint8Array(MAX_EVENTS)
const OUT = Buffer.alloc(MAX_EVENTS * 6)

const Q = 0x22 // "
const BS = 0x5c // \
const COLON = 0x3a
const COMMA = 0x2c
const LBRACE = 0x7b
const RBRACE = 0x7d
const LBRACK = 0x5b
const RBRACK = 0x5d

const bytes = (s: string) => new Uint8Array(Buffer.from(s, 'latin1'))
const word = (s: string) => Buffer.from(s, 'latin1').readUInt32LE(0)
// keys and values, quotes (and a key's colon) included
const K = {
  saleId: bytes('"saleId":'),
  serial: bytes('"serial":'),
  player: bytes('"player":'),
  soldAt: bytes('"soldAt":'),
  stakeCents: bytes('"stakeCents":'),
  play: bytes('"play":'),
  mode: bytes('"mode":'),
  status: bytes('"status":'),
  events: bytes('"events":'),
  t: bytes('"t":'),
  zone: bytes('"zone":'),
  cell: bytes('"cell":'),
  gesture: bytes('"gesture":'),
}
const V = {
  null: bytes('null'),
  play: bytes('"play"'),
  auto: bytes('"auto"'),
  complete: bytes('"complete"'),
  interrupted: bytes('"interrupted"'),
  winning: bytes('"winning"'),
  yours: bytes('"yours"'),
  click: bytes('"click"'),
  drag: bytes('"drag"'),
}
// the usual event, `{"t":N,"zone":"winning"|"yours","cell":N,"gesture":"click"|"drag"}`, in words of four bytes
const W_T = word('{"t"')
const W_ZONE = [word(',"zo'), word('ne":')]
const W_WINNING = [word('"win'), word('ning')]
const W_YOURS = word('"you')
const W_CELL = [word(',"ce'), word('ll":')]
const W_GESTURE = [word(',"ge'), word('stur'), word('e":"')]
const W_CLICK = word('clic')
const W_DRAG = word('drag')

// the feed being read, and a view on it for the four-byte words
let b: Buffer = Buffer.alloc(0)
let dv = new DataView(b.buffer)
/** Where the last uint() or str() stopped. */
let at = 0

let src: Uint8Array | null = null
function use(feed: Uint8Array) {
  src = feed
  b = Buffer.isBuffer(feed) ? feed : Buffer.from(feed.buffer, feed.byteOffset, feed.byteLength)
  dv = new DataView(feed.buffer, feed.byteOffset, feed.byteLength)
}

/** The bytes of `lit` at i. */
function is(i: number, lit: Uint8Array): boolean {
  const n = lit.length
  for (let k = 0; k < n; k++) if (b[i + k] !== lit[k]) return false
  return true
}

/** One of two values at i: 0 for `first`, 1 for `second` (`at` set past it), -1 for neither. */
function either(i: number, first: Uint8Array, second: Uint8Array): number {
  if (is(i, first)) {
    at = i + first.length
    return 0
  }
  if (is(i, second)) {
    at = i + second.length
    return 1
  }
  return -1
}

/** A whole number ≥ 0 in plain digits (no sign, fraction, exponent or leading zero), up to 15 digits, from i; -1 otherwise. */
function uint(i: number): number {
  const start = i
  let n = 0
  for (;;) {
    const c = b[i]
    if (c >= 0x30 && c <= 0x39) {
      n = n * 10 + (c - 0x30)
      i++
    } else break
  }
  at = i
  const len = i - start
  if (len === 0 || len > 15 || (len > 1 && b[start] === 0x30)) return -1
  return n
}

/** Whether the last str() met a byte beyond ASCII. */
let wide = false

/**
 * A string without escapes or control characters (C0, DEL) from i (its opening quote), up to `end`: the
 * position of its closing quote (`at` set past it, its text from i + 1), or -1 otherwise.
 */
function str(i: number, end: number): number {
  if (b[i] !== Q) return -1
  i++
  let w = false
  for (;;) {
    if (i >= end) return -1
    const c = b[i]
    if (c === Q) break
    if (c < 0x20 || c === BS) return -1
    if (c >= 0x7f) {
      // DEL is a control character too (a player id may not hold one: the full path says so)
      if (c === 0x7f) return -1
      w = true
    }
    i++
  }
  wide = w
  at = i + 1
  return i
}

/**
 * Whether the string str() just read, from `from` to its closing quote `to`, passes the
 * schema's checks (import.ts, feedLineSchema): 1 to `max` characters (UTF-16 units, as
 * JavaScript counts them) without spaces around it; with `trimmed` false (a serial or a date),
 * only the most length. ASCII is judged on its bytes;
 * anything wider is decoded.
 */
function fits(from: number, to: number, max: number, trimmed: boolean): boolean {
  if (!wide) return to - from <= max && (!trimmed || (to > from && b[from] !== 0x20 && b[to - 1] !== 0x20))
  const v = b.toString('utf8', from, to)
  return v.length <= max && (!trimmed || (v.length >= 1 && v.trim() === v))
}

/** The usual event at i, into slot n: the position after it, or -1 when it is written otherwise. */
function usualEvent(i: number, n: number): number {
  if (dv.getUint32(i, true) !== W_T || b[i + 4] !== COLON) return -1
  const t = uint(i + 5)
  let j = at
  if (t < 0 || dv.getUint32(j, true) !== W_ZONE[0] || dv.getUint32(j + 4, true) !== W_ZONE[1]) return -1
  j += 8
  let yours: number
  if (dv.getUint32(j, true) === W_WINNING[0] && dv.getUint32(j + 4, true) === W_WINNING[1] && b[j + 8] === Q) {
    yours = 0
    j += 9
  } else if (dv.getUint32(j, true) === W_YOURS && b[j + 4] === 0x72 && b[j + 5] === 0x73 && b[j + 6] === Q) {
    yours = 1
    j += 7
  } else return -1
  if (dv.getUint32(j, true) !== W_CELL[0] || dv.getUint32(j + 4, true) !== W_CELL[1]) return -1
  const c = uint(j + 8)
  j = at
  if (c < 0 || c > 63) return -1
  if (
    dv.getUint32(j, true) !== W_GESTURE[0] ||
    dv.getUint32(j + 4, true) !== W_GESTURE[1] ||
    dv.getUint32(j + 8, true) !== W_GESTURE[2]
  )
    return -1
  j += 12
  let drag: number
  if (dv.getUint32(j, true) === W_CLICK && b[j + 4] === 0x6b && b[j + 5] === Q && b[j + 6] === RBRACE) {
    drag = 0
    j += 7
  } else if (dv.getUint32(j, true) === W_DRAG && b[j + 4] === Q && b[j + 5] === RBRACE) {
    drag = 1
    j += 6
  } else return -1
  T[n] = t
  ZONE_YOURS[n] = yours
  CELL[n] = c
  DRAG[n] = drag
  return j
}

/** An event with its keys in any order at i, into slot n: the position after it, or -1. */
function anyEvent(i: number, n: number): number {
  if (b[i] !== LBRACE) return -1
  i++
  let seen = 0
  for (;;) {
    if (is(i, K.t)) {
      if (seen & 1) return -1
      seen |= 1
      const t = uint(i + K.t.length)
      if (t < 0) return -1
      T[n] = t
      i = at
    } else if (is(i, K.zone)) {
      if (seen & 2) return -1
      seen |= 2
      const yours = either(i + K.zone.length, V.winning, V.yours)
      if (yours < 0) return -1
      ZONE_YOURS[n] = yours
      i = at
    } else if (is(i, K.cell)) {
      if (seen & 4) return -1
      seen |= 4
      const c = uint(i + K.cell.length)
      if (c < 0 || c > 63) return -1
      CELL[n] = c
      i = at
    } else if (is(i, K.gesture)) {
      if (seen & 8) return -1
      seen |= 8
      const drag = either(i + K.gesture.length, V.click, V.drag)
      if (drag < 0) return -1
      DRAG[n] = drag
      i = at
    } else return -1
    const c = b[i++]
    if (c === RBRACE) break
    if (c !== COMMA) return -1
  }
  return seen === 15 ? i : -1
}

/** The events' list at i into the scratch arrays: the position after it, or -1. */
function readEvents(i: number, play: FastPlay): number {
  if (b[i] !== LBRACK) return -1
  i++
  let n = 0
  if (b[i] === RBRACK) {
    play.count = 0
    return i + 1
  }
  for (;;) {
    if (n >= MAX_EVENTS) return -1
    let j = usualEvent(i, n)
    if (j < 0) j = anyEvent(i, n)
    if (j < 0) return -1
    n++
    i = j
    const c = b[i++]
    if (c === RBRACK) break
    if (c !== COMMA) return -1
  }
  play.count = n
  return i
}

/** The play object at i: the position after it, with the play in `play`; -1 when it is not one. */
function readPlay(i: number, play: FastPlay): number {
  if (b[i] !== LBRACE) return -1
  i++
  let seen = 0
  for (;;) {
    if (is(i, K.mode)) {
      if (seen & 1) return -1
      seen |= 1
      const auto = either(i + K.mode.length, V.play, V.auto)
      if (auto < 0) return -1
      play.auto = auto === 1
      i = at
    } else if (is(i, K.status)) {
      if (seen & 2) return -1
      seen |= 2
      const complete = either(i + K.status.length, V.interrupted, V.complete)
      if (complete < 0) return -1
      play.complete = complete === 1
      i = at
    } else if (is(i, K.events)) {
      if (seen & 4) return -1
      seen |= 4
      i = readEvents(i + K.events.length, play)
      if (i < 0) return -1
    } else return -1
    const c = b[i++]
    if (c === RBRACE) break
    if (c !== COMMA) return -1
  }
  return seen === 7 ? i : -1
}

/**
 * Where the fields of the line that scanFeedLine just read lie in the feed (each string from its
 * `…From` to its `…To`, quotes excluded), its stake, and its play (null for `"play": null`).
 */
export const scanned = {
  saleIdFrom: 0,
  saleIdTo: 0,
  serialFrom: 0,
  serialTo: 0,
  playerFrom: 0,
  playerTo: 0,
  soldAtFrom: 0,
  soldAtTo: 0,
  stakeCents: 0,
  /** also true when a field's text is beyond ASCII */
  wide: false,
  play: null as FastPlay | null,
}
const scratchPlay: FastPlay = { auto: false, complete: false, count: 0 }
/** A line's texts, in the order of their bits in scanFeedLine's `seen`: their keys, most lengths, and whether spaces around them are refused. */
const TEXTS = [
  { key: K.saleId, max: MAX_TEXT, trimmed: true },
  { key: K.serial, max: 40, trimmed: false },
  { key: K.player, max: MAX_TEXT, trimmed: true },
  { key: K.soldAt, max: 40, trimmed: false },
]
/** Where each text of the line being read starts and ends, in TEXTS' order. */
const spans = new Int32Array(2 * TEXTS.length)

/**
 * The line read by the fast path, or null when it is not one of the usual lines (then read it
 * with JSON.parse and the schema). The line is `feed` from `start` to `end` (UTF-8 bytes): a
 * feed is read in place. Nothing past a line's end is read as part of it. The play's events stay
 * in scratch arrays until the next call: pack them with `packFastPlay` before reading another line.
 */
export function readFeedLineFast(feed: Uint8Array, start = 0, end = feed.length): FastFeedLine | null {
  if (!scanFeedLine(feed, start, end)) return null
  const f = scanned
  const s = (from: number, to: number) => b.toString('utf8', from, to)
  const play = f.play && { ...f.play }
  return {
    saleId: s(f.saleIdFrom, f.saleIdTo),
    serial: s(f.serialFrom, f.serialTo),
    player: s(f.playerFrom, f.playerTo),
    soldAt: s(f.soldAtFrom, f.soldAtTo),
    stakeCents: f.stakeCents,
    play,
  }
}

/**
 * readFeedLineFast without making a string or an object: true when the line is one of the usual
 * ones, its fields then in `scanned` (offsets into `feed`) and its events in the scratch arrays
 * until the next call. The same lines pass as for readFeedLineFast.
 */
export function scanFeedLine(feed: Uint8Array, start = 0, end = feed.length): boolean {
  if (feed !== src) use(feed)
  // the four-byte words may look up to 12 bytes ahead: near the feed's end, the careful reader
  if (end + 16 > feed.length) return scanTail(feed, start, end)
  if (b[start] !== LBRACE) return false
  const f = scanned
  let i = start + 1
  let anyWide = false
  let play: FastPlay | null = null
  let seen = 0
  for (;;) {
    let t = 0
    while (t < TEXTS.length && !is(i, TEXTS[t].key)) t++
    if (t < TEXTS.length) {
      // one of the four texts: saleId, serial, player, soldAt
      const { key, max, trimmed } = TEXTS[t]
      if (seen & (1 << t)) return false
      seen |= 1 << t
      const from = i + key.length + 1
      const to = str(from - 1, end)
      if (to < 0 || !fits(from, to, max, trimmed)) return false
      spans[2 * t] = from
      spans[2 * t + 1] = to
      anyWide ||= wide
      i = at
    } else if (is(i, K.stakeCents)) {
      if (seen & 16) return false
      seen |= 16
      const stake = uint(i + K.stakeCents.length)
      if (stake < 0) return false
      f.stakeCents = stake
      i = at
    } else if (is(i, K.play)) {
      if (seen & 32) return false
      seen |= 32
      i += K.play.length
      if (is(i, V.null)) i += V.null.length
      else {
        play = scratchPlay
        i = readPlay(i, play)
        if (i < 0) return false
      }
    } else return false
    if (i >= end) return false
    const c = b[i++]
    if (c === RBRACE) break
    if (c !== COMMA) return false
  }
  if (seen !== 63 || i !== end) return false
  f.saleIdFrom = spans[0]
  f.saleIdTo = spans[1]
  f.serialFrom = spans[2]
  f.serialTo = spans[3]
  f.playerFrom = spans[4]
  f.playerTo = spans[5]
  f.soldAtFrom = spans[6]
  f.soldAtTo = spans[7]
  f.play = play
  f.wide = anyWide
  return true
}

/** A line near the feed's end, read from a copy with room after it (the words read ahead never leave a buffer); its offsets are the feed's. */
function scanTail(feed: Uint8Array, start: number, end: number): boolean {
  const copy = new Uint8Array(end - start + 16)
  copy.set(feed.subarray(start, end))
  // a line break after the copy's line, as in a feed: never part of a line
  copy[end - start] = 0x0a
  const ok = scanFeedLine(copy, 0, end - start)
  use(feed)
  if (ok) {
    const f = scanned
    f.saleIdFrom += start
    f.saleIdTo += start
    f.serialFrom += start
    f.serialTo += start
    f.playerFrom += start
    f.playerTo += start
    f.soldAtFrom += start
    f.soldAtTo += start
  }
  return ok
}

/**
 * The play just read, checked by the rules of validatePlay (as play-codec's isValidPlayFast)
 * and packed as packPlay would pack it; null when it breaks a rule or the zones are wider than
 * 30 cells (then the full path judges it and says why).
 */
export function packFastPlay(play: FastPlay, W: number, Y: number): { code: number; events: Buffer } | null {
  const o = packFastPlayInto(play, W, Y, OUT, 0)
  return o < 0 ? null : { code: fastPlayCode(play), events: Buffer.from(OUT.subarray(0, o)) }
}

/** The play's code, as playCode gives it. */
export const fastPlayCode = (play: FastPlay): number => (play.auto ? 2 : 0) + (play.complete ? 0 : 1)

/**
 * The same, with the packed events written into `out` from `at` (room for 6 bytes an event
 * needed) instead of a buffer of their own: their length, or -1 when the play breaks a rule
 * (then the bytes written there mean nothing).
 */
export function packFastPlayInto(play: FastPlay, W: number, Y: number, out: Uint8Array, at: number): number {
  if (W > 30 || Y > 30) return -1
  const allW = (1 << W) - 1
  const allY = (1 << Y) - 1
  let seenW = 0
  let seenY = 0
  let last = 0
  let o = at
  for (let i = 0; i < play.count; i++) {
    const t = T[i]
    if (t < last) return -1
    const d = t - last
    if (d > 0xffffffff) return -1
    last = t
    const drag = DRAG[i] === 1
    if (drag && play.auto) return -1
    const c = CELL[i]
    const yours = ZONE_YOURS[i] === 1
    if (!yours) {
      if (c >= W || seenW & (1 << c)) return -1
      seenW |= 1 << c
    } else {
      if (c >= Y || seenY & (1 << c) || seenW !== allW) return -1
      seenY |= 1 << c
    }
    out[o++] = (drag ? 0x80 : 0) | (yours ? 0x40 : 0) | c
    let v = d
    while (v >= 0x80) {
      out[o++] = (v & 0x7f) | 0x80
      v = Math.floor(v / 128)
    }
    out[o++] = v
  }
  const all = seenW === allW && seenY === allY
  if (play.complete !== all) return -1
  return o - at
}

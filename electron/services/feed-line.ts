/**
 * A fast reader for the sales feed's usual lines. JSON.parse of a 1,775-byte line with its 30
 * event objects costs more than everything else the importer does for it; this reader walks the
 * text once, takes the events straight into their packed form (play-codec.ts) and makes no
 * object per event.
 *
 * It reads only a strict subset of JSON: the six fields of a line, each once, in any order, no
 * whitespace; strings without escapes or control characters; whole numbers written in plain
 * digits; a play with `mode`, `status` and `events`, each once; events with `t`, `zone`, `cell`
 * and `gesture`, each once, with values that the rules allow in form. Anything else (including
 * every line that is wrong) makes it answer null, and the importer then reads the line with
 * JSON.parse and the zod schema, which give the reasons. So a line it reads would have been read
 * the same by JSON.parse, passed the schema and the events' field check: it never decides that a
 * line is bad, and never accepts one that the full path refuses.
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

class Reader {
  s = ''
  i = 0

  /** A string without escapes; null when there is anything else. */
  str(): string | null {
    const s = this.s
    if (s.charCodeAt(this.i) !== Q) return null
    const start = ++this.i
    for (;;) {
      const c = s.charCodeAt(this.i)
      if (c === Q) break
      // NaN past the end, control characters and escapes: not for this reader
      if (!(c >= 0x20) || c === BS) return null
      this.i++
    }
    return s.slice(start, this.i++)
  }

  /** A whole number ≥ 0 in plain digits (no sign, fraction, exponent or leading zero), up to 15 digits; -1 otherwise. */
  uint(): number {
    const s = this.s
    const start = this.i
    let n = 0
    for (;;) {
      const c = s.charCodeAt(this.i)
      if (c >= 0x30 && c <= 0x39) {
        n = n * 10 + (c - 0x30)
        this.i++
      } else break
    }
    const len = this.i - start
    if (len === 0 || len > 15 || (len > 1 && s.charCodeAt(start) === 0x30)) return -1
    return n
  }

  /** The key `"name":`, returning the name, or null. */
  key(): string | null {
    const k = this.str()
    if (k === null || this.s.charCodeAt(this.i) !== COLON) return null
    this.i++
    return k
  }

  lit(text: string): boolean {
    if (!this.s.startsWith(text, this.i)) return false
    this.i += text.length
    return true
  }
}

const r = new Reader()

function text(v: string | null, max: number): v is string {
  return v !== null && v.length >= 1 && v.length <= max && v.trim() === v
}

/** `"name":` at the reader's position, without making a string: true and past it, or false. */
function keyIs(name: string): boolean {
  const s = r.s
  const i = r.i
  const n = name.length
  if (s.charCodeAt(i) !== Q || s.charCodeAt(i + n + 1) !== Q || s.charCodeAt(i + n + 2) !== COLON) return false
  for (let k = 0; k < n; k++) if (s.charCodeAt(i + 1 + k) !== name.charCodeAt(k)) return false
  r.i = i + n + 3
  return true
}

/** `"value"` at the reader's position, without making a string. */
function valueIs(value: string): boolean {
  const s = r.s
  const i = r.i
  const n = value.length
  if (s.charCodeAt(i) !== Q || s.charCodeAt(i + n + 1) !== Q) return false
  for (let k = 0; k < n; k++) if (s.charCodeAt(i + 1 + k) !== value.charCodeAt(k)) return false
  r.i = i + n + 2
  return true
}

function readEvents(play: FastPlay): boolean {
  const s = r.s
  if (s.charCodeAt(r.i) !== LBRACK) return false
  r.i++
  let n = 0
  if (s.charCodeAt(r.i) === RBRACK) {
    r.i++
    play.count = 0
    return true
  }
  for (;;) {
    if (n >= MAX_EVENTS || s.charCodeAt(r.i) !== LBRACE) return false
    r.i++
    let seen = 0
    for (;;) {
      if (keyIs('t')) {
        if (seen & 1) return false
        seen |= 1
        const t = r.uint()
        if (t < 0) return false
        T[n] = t
      } else if (keyIs('zone')) {
        if (seen & 2) return false
        seen |= 2
        if (valueIs('winning')) ZONE_YOURS[n] = 0
        else if (valueIs('yours')) ZONE_YOURS[n] = 1
        else return false
      } else if (keyIs('cell')) {
        if (seen & 4) return false
        seen |= 4
        const c = r.uint()
        if (c < 0 || c > 63) return false
        CELL[n] = c
      } else if (keyIs('gesture')) {
        if (seen & 8) return false
        seen |= 8
        if (valueIs('click')) DRAG[n] = 0
        else if (valueIs('drag')) DRAG[n] = 1
        else return false
      } else return false
      const c = s.charCodeAt(r.i++)
      if (c === RBRACE) break
      if (c !== COMMA) return false
    }
    if (seen !== 15) return false
    n++
    const c = s.charCodeAt(r.i++)
    if (c === RBRACK) break
    if (c !== COMMA) return false
  }
  play.count = n
  return true
}

function readPlay(): FastPlay | null | false {
  const s = r.s
  if (r.lit('null')) return null
  if (s.charCodeAt(r.i) !== LBRACE) return false
  r.i++
  const play: FastPlay = { auto: false, complete: false, count: 0 }
  let seen = 0
  for (;;) {
    if (keyIs('mode')) {
      if (seen & 1) return false
      seen |= 1
      if (valueIs('auto')) play.auto = true
      else if (!valueIs('play')) return false
    } else if (keyIs('status')) {
      if (seen & 2) return false
      seen |= 2
      if (valueIs('complete')) play.complete = true
      else if (!valueIs('interrupted')) return false
    } else if (keyIs('events')) {
      if (seen & 4) return false
      seen |= 4
      if (!readEvents(play)) return false
    } else return false
    const c = s.charCodeAt(r.i++)
    if (c === RBRACE) break
    if (c !== COMMA) return false
  }
  return seen === 7 ? play : false
}

/**
 * The line read by the fast path, or null when it is not one of the usual lines (then read it
 * with JSON.parse and the schema). The line is `feed` from `start` to `end`: a feed is read in
 * place, since charCodeAt on a slice of a long text is slower than on the text itself. Nothing
 * past a line's end can be read as part of it: a line break is a control character, which none
 * of the reader's rules accepts. The play's events stay in scratch arrays until the next call:
 * pack them with `packFastPlay` before reading another line.
 */
export function readFeedLineFast(feed: string, start = 0, end = feed.length): FastFeedLine | null {
  const line = feed
  r.s = feed
  if (feed.charCodeAt(start) !== LBRACE) return null
  r.i = start + 1
  let saleId: string | null = null
  let serial: string | null = null
  let player: string | null = null
  let soldAt: string | null = null
  let stakeCents = -1
  let play: FastPlay | null | false = false
  let seen = 0
  for (;;) {
    const k = r.key()
    if (k === null) return null
    if (k === 'saleId') {
      if (seen & 1) return null
      seen |= 1
      saleId = r.str()
      if (!text(saleId, MAX_TEXT)) return null
    } else if (k === 'serial') {
      if (seen & 2) return null
      seen |= 2
      serial = r.str()
      if (serial === null || serial.length > 40) return null
    } else if (k === 'player') {
      if (seen & 4) return null
      seen |= 4
      player = r.str()
      if (!text(player, MAX_TEXT)) return null
    } else if (k === 'soldAt') {
      if (seen & 8) return null
      seen |= 8
      soldAt = r.str()
      if (soldAt === null || soldAt.length > 40) return null
    } else if (k === 'stakeCents') {
      if (seen & 16) return null
      seen |= 16
      stakeCents = r.uint()
      if (stakeCents < 0) return null
    } else if (k === 'play') {
      if (seen & 32) return null
      seen |= 32
      play = readPlay()
      if (play === false) return null
    } else return null
    const c = line.charCodeAt(r.i++)
    if (c === RBRACE) break
    if (c !== COMMA) return null
  }
  if (seen !== 63 || r.i !== end || play === false) return null
  return { saleId: saleId!, serial: serial!, player: player!, soldAt: soldAt!, stakeCents, play }
}

/**
 * The play just read, checked by the rules of validatePlay (as play-codec's isValidPlayFast)
 * and packed as packPlay would pack it; null when it breaks a rule or the zones are wider than
 * 30 cells (then the full path judges it and says why).
 */
export function packFastPlay(play: FastPlay, W: number, Y: number): { code: number; events: Buffer } | null {
  if (W > 30 || Y > 30) return null
  const allW = (1 << W) - 1
  const allY = (1 << Y) - 1
  let seenW = 0
  let seenY = 0
  let last = 0
  let o = 0
  for (let i = 0; i < play.count; i++) {
    const t = T[i]
    if (t < last) return null
    const d = t - last
    if (d > 0xffffffff) return null
    last = t
    const drag = DRAG[i] === 1
    if (drag && play.auto) return null
    const c = CELL[i]
    const yours = ZONE_YOURS[i] === 1
    if (!yours) {
      if (c >= W || seenW & (1 << c)) return null
      seenW |= 1 << c
    } else {
      if (c >= Y || seenY & (1 << c) || seenW !== allW) return null
      seenY |= 1 << c
    }
    OUT[o++] = (drag ? 0x80 : 0) | (yours ? 0x40 : 0) | c
    let v = d
    while (v >= 0x80) {
      OUT[o++] = (v & 0x7f) | 0x80
      v = Math.floor(v / 128)
    }
    OUT[o++] = v
  }
  const all = seenW === allW && seenY === allY
  if (play.complete !== all) return null
  return { code: (play.auto ? 2 : 0) + (play.complete ? 0 : 1), events: Buffer.from(OUT.subarray(0, o)) }
}

/**
 * Where a text file stops being UTF-8, to say it to whoever fixes the file: the offset of the
 * first byte that starts an ill-formed sequence (a stray continuation byte, a sequence cut
 * short, an overlong form, a surrogate, or beyond U+10FFFF: the Unicode standard's "maximal
 * subpart" rule, which node's isUtf8 and a fatal TextDecoder apply), its line and its place in
 * that line. Pure TypeScript (the renderer's bundle takes it too). Only for files already known
 * not to be UTF-8 (isUtf8, TextDecoder): it walks the bytes one by one.
 */

export interface Utf8Stop {
  /** 0-based offset of the byte in the file (as `cmp`, `dd skip=` or `xxd -s` take it) */
  offset: number
  /** 1-based line number */
  line: number
  /** 1-based place of the byte in its line, counted in bytes (a byte order mark is not part of line 1) */
  byte: number
}

/** The offset of the first byte where `bytes` stop being UTF-8, or -1 when they are UTF-8 throughout. */
export function firstNonUtf8(bytes: Uint8Array): number {
  const n = bytes.length
  let i = 0
  while (i < n) {
    const b = bytes[i]
    if (b < 0x80) {
      i++
      continue
    }
    // the continuation bytes' range after the lead byte (Unicode Table 3-7, well-formed sequences)
    let need: number
    let lo = 0x80
    let hi = 0xbf
    if (b >= 0xc2 && b <= 0xdf) need = 1
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2
      if (b === 0xe0) lo = 0xa0
      else if (b === 0xed) hi = 0x9f
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3
      if (b === 0xf0) lo = 0x90
      else if (b === 0xf4) hi = 0x8f
    } else return i
    // a sequence cut short by the file's end reads undefined
    const second = bytes[i + 1]
    if (second === undefined || second < lo || second > hi) return i
    for (let k = 2; k <= need; k++) {
      const c = bytes[i + k]
      if (c === undefined || c < 0x80 || c > 0xbf) return i
    }
    i += need + 1
  }
  return -1
}

/** Where `bytes` stop being UTF-8, or null when they are UTF-8 throughout. */
export function utf8Stop(bytes: Uint8Array): Utf8Stop | null {
  const offset = firstNonUtf8(bytes)
  if (offset < 0) return null
  let line = 1
  let lineStart = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf && offset >= 3 ? 3 : 0
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 0x0a) {
      line++
      lineStart = i + 1
    }
  }
  return { offset, line, byte: offset - lineStart + 1 }
}

/** The English sentence: where the file stops being UTF-8. */
export const describeUtf8Stop = (s: Utf8Stop): string =>
  `it stops being UTF-8 at line ${s.line}, byte ${s.byte} of that line (offset ${s.offset} in the file, counting from 0)`

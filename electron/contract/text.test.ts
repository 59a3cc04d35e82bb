import { describe, expect, it } from 'vitest'
import { describeTextProblem, firstUnstorable, playerIdProblem, textProblem } from './text'

const hex = (c: number) => `U+${c.toString(16).toUpperCase().padStart(4, '0')}`
const INVISIBLE = [
  0x00ad, 0x034f, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x180b, 0x180c, 0x180d, 0x180e, 0x180f, 0x200b, 0x200c, 0x200d,
  0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0x3164, 0xfeff, 0xffa0,
]
const BIDI = [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]
const CONTROL = [
  ...Array.from({ length: 0x20 }, (_, i) => i),
  0x7f,
  ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i),
  0x2028,
  0x2029,
]

describe('the text rule', () => {
  it('refuses the controls, the invisible and bidirectional formatting characters and lone surrogates, and nothing else', () => {
    for (let c = 0; c < 0x10000; c++) {
      const p = textProblem(`ab${String.fromCharCode(c)}`)
      const kind =
        c >= 0xd800 && c <= 0xdfff
          ? 'surrogate'
          : CONTROL.includes(c)
            ? 'control'
            : INVISIBLE.includes(c)
              ? 'invisible'
              : BIDI.includes(c)
                ? 'bidi'
                : null
      if (kind) expect(p, c.toString(16)).toEqual({ char: hex(c), position: 3, kind })
      else expect(p, c.toString(16)).toBeNull()
    }
    expect(textProblem('😀-Zoé-Ωμέγα-李')).toBeNull()
  })

  it('tells a lone surrogate from a pair, wherever it stands', () => {
    expect(textProblem('PL\ud800')).toEqual({ char: 'U+D800', position: 3, kind: 'surrogate' })
    expect(textProblem('\udc00PL')).toEqual({ char: 'U+DC00', position: 1, kind: 'surrogate' })
    expect(textProblem('a\ud83d\ud83d\ude00')).toEqual({ char: 'U+D83D', position: 2, kind: 'surrogate' })
    expect(textProblem('a\ude00\ud83d')).toEqual({ char: 'U+DE00', position: 2, kind: 'surrogate' })
    expect(textProblem('a\ud83d\ude00b')).toBeNull()
  })

  it('keeps line feed and tab in a multi-line text only', () => {
    expect(textProblem('a\nb\tc', { multiline: true })).toBeNull()
    expect(textProblem('a\nb')).toMatchObject({ char: 'U+000A', kind: 'control' })
    expect(textProblem('a\rb', { multiline: true })).toMatchObject({ char: 'U+000D', kind: 'control' })
    expect(textProblem('a\u0000b', { multiline: true })).toMatchObject({ char: 'U+0000', kind: 'control' })
  })

  it('asks for the composed form (NFC) of a player id, naming where it is not', () => {
    expect(playerIdProblem('Hélène')).toBeNull()
    expect(playerIdProblem('He\u0301le\u0300ne')).toEqual({ char: 'U+0065', position: 2, kind: 'not-nfc' })
    expect(playerIdProblem('\u212b')).toEqual({ char: 'U+212B', position: 1, kind: 'not-nfc' })
    expect(textProblem('He\u0301le\u0300ne')).toBeNull()
    expect(describeTextProblem(playerIdProblem('Zoe\u0301')!, 'a player id')).toMatch(
      /composed form \(NFC\) from character 3 \(U\+0065\)/,
    )
  })

  it('says the character, its place and its kind', () => {
    expect(describeTextProblem(textProblem('ad\u200bmin')!, 'a name')).toBe(
      'it holds U+200B at character 3, an invisible character: a name may hold no control, invisible or bidirectional formatting character, nor half of a surrogate pair',
    )
  })

  it('knows what no ledger stores as it is: a lone surrogate, NUL', () => {
    expect(firstUnstorable('a\u200b\u202e\n\u0007😀')).toBeNull()
    expect(firstUnstorable('ab\u0000')).toEqual({ char: 'U+0000', position: 3, kind: 'control' })
    expect(firstUnstorable('ab\ud800')).toEqual({ char: 'U+D800', position: 3, kind: 'surrogate' })
  })
})

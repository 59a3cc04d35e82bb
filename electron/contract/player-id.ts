/**
 * What a player's account id may not hold, for the sales feed and the contract's players:*
 * channels alike: the control characters (C0 U+0000–U+001F, DEL U+007F, C1 U+0080–U+009F), which
 * no account id has and which break logs, terminals and exports, and Unicode's bidirectional
 * formatting characters (the embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069,
 * the marks U+200E, U+200F and U+061C), which make a text show in another order than it is
 * stored: an id could then look like another one on a screen, in a log or in a spreadsheet.
 * Pure TypeScript (the renderer's bundle takes it too).
 */

/** Whether the UTF-16 unit `c` is one of the characters a player id may not hold. */
export function isForbiddenInPlayerId(c: number): boolean {
  if (c < 0x20) return true
  if (c < 0x7f) return false
  if (c <= 0x9f) return true
  return c === 0x061c || c === 0x200e || c === 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)
}

/** The first such character of `text`, with its place (1 for the first character), or null when it has none. */
export function playerIdProblem(text: string): { char: string; position: number } | null {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (isForbiddenInPlayerId(c)) return { char: codePoint(c), position: i + 1 }
  }
  return null
}

/** U+XXXX, as the character's name is written. */
export const codePoint = (c: number): string => `U+${c.toString(16).toUpperCase().padStart(4, '0')}`

/** The English sentence of playerIdProblem's answer. */
export const describePlayerIdProblem = (p: { char: string; position: number }): string =>
  `it holds ${p.char} at character ${p.position}: a player id may hold no control character and no bidirectional formatting character`

/** A duration in ms as seconds, "1,93 s" ("—" when unknown). */
export function seconds(ms: number | null, dec: (n: number, digits?: number) => string): string {
  return ms === null ? '—' : `${dec(ms / 1000, 2)} s`
}

/** A commitment in groups of 8 hexadecimal digits, so that it reads and prints on one line. */
export function hexGroups(hex: string, size = 8): string {
  return hex.match(new RegExp(`.{1,${size}}`, 'g'))?.join(' ') ?? ''
}

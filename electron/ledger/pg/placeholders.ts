/**
 * SQLite's positional `?` parameters as PostgreSQL's `$1…$n`, leaving alone what is quoted
 * ('text', "names") and comments (-- and /* *\/).
 */
export function toNumbered(sql: string): string {
  let out = ''
  let n = 0
  let i = 0
  while (i < sql.length) {
    const c = sql[i]
    const end = skipQuotedOrComment(sql, i)
    if (end > i) {
      out += sql.slice(i, end)
      i = end
    } else {
      out += c === '?' ? `$${++n}` : c
      i++
    }
  }
  return out
}

/** Where the quoted text or comment starting at i ends (i itself when none starts there). */
function skipQuotedOrComment(sql: string, i: number): number {
  const c = sql[i]
  if (c === "'" || c === '"') {
    let j = i + 1
    while (j < sql.length) {
      if (sql[j] === c && sql[j + 1] === c) j += 2
      else if (sql[j] === c) return j + 1
      else j++
    }
    return sql.length
  }
  if (c === '-' && sql[i + 1] === '-') {
    const nl = sql.indexOf('\n', i)
    return nl < 0 ? sql.length : nl
  }
  if (c === '/' && sql[i + 1] === '*') {
    const close = sql.indexOf('*/', i + 2)
    return close < 0 ? sql.length : close + 2
  }
  return i
}

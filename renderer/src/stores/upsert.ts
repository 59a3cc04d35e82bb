/** Puts `item` in place of the entry `same` matches in `list`, or at its end; returns `item`. */
export function upsert<T>(list: T[], item: T, same: (a: T, b: T) => boolean): T {
  const i = list.findIndex((x) => same(x, item))
  if (i >= 0) list.splice(i, 1, item)
  else list.push(item)
  return item
}

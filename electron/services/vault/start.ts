/**
 * Where a vault's files begin: at event 0 with an empty tree, or, in an export or a purged vault,
 * after the events `start.json` sums up (their number and the tree's frontier after them).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { START_FILE } from './format'
import { emptyFrontier, frontierFromJson, type Frontier } from './tlog'

export function readStart(folder: string): { size: number; frontier: Frontier } {
  let text: string
  try {
    text = readFileSync(join(folder, START_FILE), 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { size: 0, frontier: emptyFrontier() }
    throw e
  }
  const frontier = frontierFromJson((JSON.parse(text) as { frontier: unknown }).frontier)
  return { size: frontier.size, frontier }
}

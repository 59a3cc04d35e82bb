// The probability that a unit of 500 000 CARATS needs the extra keystream (DERIVATION.md §4):
// each draw uniform(n) rejects a word with probability (65536 mod n) / 65536 and retries, so the
// words a unit takes are its D draws plus a sum of geometric variables; the slice holds 64 words.
// Run: node scripts/extra-keystream-odds.mjs (reads the definition from `carats rules --json` on stdin)
import { readFileSync } from 'node:fs'

const def = JSON.parse(readFileSync(0, 'utf8'))
const WORDS = 64
const reject = (n) => (65536 % n) / 65536

/** P(sum of the draws' rejections > spare), by convolving the geometric laws up to spare + 1. */
function overflow(ns) {
  const spare = WORDS - ns.length
  if (spare < 0) return 1
  // dist[a]: probability of a rejections so far (a ≤ spare); over: probability of more than spare,
  // summed as exact tails P(G ≥ m) = r^m (1 − Σ dist would lose the 10⁻¹⁴ in rounding).
  let dist = new Float64Array(spare + 1)
  dist[0] = 1
  let over = 0
  for (const n of ns) {
    const r = reject(n)
    const next = new Float64Array(spare + 1)
    for (let a = 0; a <= spare; a++) {
      let p = 1 - r
      for (let g = 0; a + g <= spare; g++, p *= r) next[a + g] += dist[a] * p
      over += dist[a] * r ** (spare - a + 1)
    }
    dist = next
  }
  return over
}

const M = def.numbers.length,
  W = def.winningCells,
  Y = def.yoursCells
const decoyTotal = def.decoyWeights.reduce((a, d) => a + d.weight, 0)
const range = (from, count) => Array.from({ length: count }, (_, i) => from - i)
function drawsOf(k, compositionTotal) {
  return [
    ...range(M, W),
    ...(compositionTotal ? [compositionTotal] : []),
    ...range(M - W, Y - k),
    ...range(W, k),
    ...range(Y, k),
    ...Array(Y - k).fill(decoyTotal),
  ]
}
let total = 0
let prizes = 0
for (const t of def.tiers) {
  const rule = def.compositions.find((c) => c.amountCents === t.amountCents)
  const sum = rule.options.reduce((a, o) => a + o.weight, 0)
  let p = 0
  for (const o of rule.options)
    p += (o.weight / sum) * overflow(drawsOf(o.partsCents.length, rule.options.length > 1 ? sum : 0))
  total += t.count * p
  prizes += t.count
  console.log(`tier ${t.amountCents / 100} EUR: ${p.toExponential(3)} per unit`)
}
const losing = overflow(drawsOf(0, 0))
console.log(`losing: ${losing.toExponential(3)} per unit`)
total += (def.blockSize - prizes) * losing
console.log(`a unit of the block: ${(total / def.blockSize).toExponential(3)}; a block: ${total.toExponential(3)}`)

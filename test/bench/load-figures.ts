/**
 * The load bench's figures: per kind of call, how many, how many failed and why, p50 / p99 / max
 * (of every call, failed ones included: a user waited for them too) and p99 of the calls sent
 * while an import ran; the uploads, each with its time and outcome; and the targets.
 */
import type { BenchEngine, Figure } from './ledger-engines'
import { PROBE_OP, type Sample, type Upload } from './load-clients'
import { fmt, summarize, type BenchLine } from './stats'

/** The calls in the order they are shown. */
export const OPS = [
  'sign-in',
  'ticket',
  'last game',
  'dashboard',
  'claim step',
  'claims list',
  'sign-out',
  PROBE_OP,
] as const

/** The p99 targets, in ms (issue 30, item 5): sign-in on both, lookups and dashboard per engine. */
export function p99Target(op: string, engine: BenchEngine): number | undefined {
  if (op === 'sign-in') return 1000
  if (op === 'ticket' || op === 'last game' || op === 'dashboard') return engine === 'sqlite' ? 100 : 250
  return undefined
}

export interface OpFigures {
  op: string
  n: number
  errors: number
  p50: number
  p99: number
  max: number
  /** p99 of the calls started while an upload was in progress, and how many. */
  duringImports: { n: number; p99: number }
  /** Each kind of failure with its count, most frequent first. */
  why: [string, number][]
}

const during = (uploads: Upload[]) => (s: Sample) => uploads.some((u) => s.at >= u.at && s.at <= u.at + u.ms)

export function opFigures(samples: Sample[], uploads: Upload[]): OpFigures[] {
  const importing = during(uploads)
  return OPS.map((op) => {
    const mine = samples.filter((s) => s.op === op)
    const all = summarize(mine.map((s) => s.ms))
    const busy = summarize(mine.filter(importing).map((s) => s.ms))
    const why = new Map<string, number>()
    for (const s of mine) if (s.error) why.set(s.error, (why.get(s.error) ?? 0) + 1)
    const errors = [...why.values()].reduce((a, b) => a + b, 0)
    return {
      op,
      n: all.n,
      errors,
      p50: all.p50,
      p99: all.p99,
      max: all.max,
      duringImports: { n: busy.n, p99: busy.p99 },
      why: [...why].sort((a, b) => b[1] - a[1]),
    }
  }).filter((f) => f.n > 0)
}

const ms = (v: number) => (Number.isNaN(v) ? '—' : v >= 100 ? fmt(v, 0) : fmt(v, 1))

/** One line per kind of call (its target when it has one), then its failures. */
export function opLines(figures: OpFigures[], engine: BenchEngine): BenchLine[] {
  const lines: BenchLine[] = []
  for (const f of figures) {
    const target = p99Target(f.op, engine)
    lines.push({
      name: `${f.op}: ${f.n.toLocaleString('en-US')} calls, ${f.errors} failed; p50 / p99 / max`,
      value: `${ms(f.p50)} / ${ms(f.p99)} / ${ms(f.max)} ms`,
      ...(target === undefined ? {} : { target: `p99 ≤ ${target} ms`, ok: f.p99 <= target }),
    })
    lines.push({
      name: `  p99 of the ${f.duringImports.n.toLocaleString('en-US')} sent during an import`,
      value: `${ms(f.duringImports.p99)} ms`,
    })
    for (const [why, n] of f.why.slice(0, 4)) lines.push({ name: `  ${n} × ${why}`.slice(0, 52), value: '' })
  }
  const failed = figures.reduce((n, f) => n + f.errors, 0)
  lines.push({ name: 'calls failed, all kinds', value: failed.toLocaleString('en-US'), target: '0', ok: failed === 0 })
  return lines
}

export const imported = (u: Upload) => (u.outcome.ok ? u.outcome.result.imported : 0)

/** One line per upload: its time and rate, or why it failed. */
export function uploadLines(uploads: Upload[]): BenchLine[] {
  return uploads.map((u, i) => {
    const o = u.outcome
    const what = `upload ${i + 1}: ${u.feed.lines.toLocaleString('en-US')} lines, ${fmt(u.feed.bytes / 2 ** 20, 0)} MiB`
    const value = o.ok
      ? `${fmt(u.ms / 1000, 1)} s, ${fmt(o.result.imported / (u.ms / 1000), 0)} lines/s`
      : `${fmt(u.ms / 1000, 1)} s, ${o.error}`.slice(0, 60)
    return { name: what, value, ok: o.ok && o.result.imported === u.feed.lines }
  })
}

/** The seconds of the window during which an upload was in progress. */
export function importingSeconds(uploads: Upload[], windowMs: number): number {
  return uploads.reduce((t, u) => t + Math.max(0, Math.min(u.at + u.ms, windowMs) - u.at), 0) / 1000
}

/** The figures shown side by side for both engines. */
export function sideFigures(engine: BenchEngine, figures: OpFigures[], uploads: Upload[]): Figure[] {
  const out: Figure[] = []
  for (const f of figures) {
    const target = p99Target(f.op, engine)
    out.push({ name: `${f.op} p50`, value: f.p50, unit: 'ms', digits: 1 })
    const text = f.op === 'sign-in' ? '≤ 1,000 ms' : '≤ 100 ms SQLite, ≤ 250 ms PostgreSQL'
    out.push({
      name: `${f.op} p99`,
      value: f.p99,
      unit: 'ms',
      digits: 1,
      ...(target === undefined ? {} : { target: text, meets: (v: number) => v <= target }),
    })
  }
  const failed = figures.reduce((n, f) => n + f.errors, 0)
  out.push({ name: 'calls failed', value: failed, target: '0', meets: (v) => v === 0 })
  const ok = uploads.filter((u) => u.outcome.ok)
  const rates = ok.map((u) => imported(u) / (u.ms / 1000)).sort((a, b) => a - b)
  out.push({ name: 'uploads sent', value: uploads.length })
  out.push({ name: 'uploads imported', value: ok.length, target: 'all', meets: (v) => v === uploads.length })
  if (rates.length)
    out.push({ name: 'import under load, median lines/s', value: rates[Math.floor((rates.length - 1) / 2)] })
  return out
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[i]
}

export function summarize(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b)
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), min: s[0], max: s[s.length - 1] }
}

export const fmt = (n: number, digits = 2) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

/** Samples the process's resident memory (worker threads included) while work runs. */
export function memoryWatch() {
  let peak = process.memoryUsage().rss
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20)
  return {
    stop() {
      clearInterval(timer)
      return Math.max(peak, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024)
    },
  }
}

export interface BenchLine {
  name: string
  value: string
  target?: string
  ok?: boolean
}

export function printTable(title: string, lines: BenchLine[]) {
  console.log(`\n## ${title}`)
  for (const l of lines) {
    const verdict = l.ok === undefined ? '' : l.ok ? '  ok' : '  MISSED'
    console.log(`${l.name.padEnd(52)} ${l.value.padStart(22)}${l.target ? `   (target ${l.target})` : ''}${verdict}`)
  }
}

/** Runs fn n times (fn(0) … fn(n − 1)) and summarizes each run's milliseconds. */
export function timeEach(n: number, fn: (i: number) => void): ReturnType<typeof summarize> {
  const ms: number[] = []
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    fn(i)
    ms.push(performance.now() - t)
  }
  return summarize(ms)
}

/** How long one run of fn takes, in seconds. */
export function seconds(fn: () => void): number {
  const t = performance.now()
  fn()
  return (performance.now() - t) / 1000
}

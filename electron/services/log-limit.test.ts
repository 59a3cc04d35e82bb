/**
 * Logging that repeats, bounded (issue 29, item 6: a full disk made the host write 293,000 lines in
 * 40 s): the first line of a kind as it is, then at most one summary a minute.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { threadId } from 'node:worker_threads'
import { checkpointFilePath } from '../ledger/checkpoint'
import { openLedger } from '../ledger/db'
import { openLedgerKey } from '../ledger/keystore'
import { testLedgerLocation } from '../../test/support/ledger-engine'
import { createAuditService } from './audit'
import { createLogLimit } from './log-limit'

function fakeLog() {
  let now = Date.parse('2026-03-02T09:00:00Z')
  const lines: string[] = []
  const log = createLogLimit({ now: () => now, write: (l) => lines.push(l), schedule: null })
  return { log, lines, advance: (ms: number) => (now += ms) }
}

describe('the log limit', () => {
  it('writes the first line of a kind, then one summary a minute of what repeated', () => {
    const { log, lines, advance } = fakeLog()
    // 10,000 failures over five minutes, one every 30 ms
    for (let i = 0; i < 10_000; i++) {
      log('checkpoint', `cannot write the checkpoint: ENOSPC (${i})`)
      advance(30)
    }
    expect(lines.length).toBeLessThanOrEqual(1 + 5)
    expect(lines[0]).toBe('cannot write the checkpoint: ENOSPC (0)')
    expect(lines[1]).toMatch(
      /^checkpoint: repeated 1999 more times in the last 60 s; the last: cannot write the checkpoint: ENOSPC \(1999\)$/,
    )
    // every failure is in a line or a count
    log.flush()
    const counted = lines.slice(1).reduce((n, l) => n + Number(/repeated (\d+)/.exec(l)![1]), 1)
    expect(counted).toBe(10_000)
  })

  it('keeps kinds apart, and writes a kind afresh once it has been quiet for a minute', () => {
    const { log, lines, advance } = fakeLog()
    log('a', 'first a')
    log('b', new Error('first b'))
    log('a', 'second a')
    expect(lines).toHaveLength(2)
    expect(lines[1]).toMatch(/^Error: first b\n/)
    advance(61_000)
    // b's minute ended with no repeat: written as it is; a's with one: its summary, then a new minute that counts
    log('b', 'again b')
    log('a', 'third a')
    expect(lines.slice(2)).toEqual(['again b', 'a: repeated 1 more time in the last 61 s; the last: second a'])
    advance(1000)
    log.flush()
    expect(lines.slice(4)).toEqual(['a: repeated 1 more time in the last 1 s; the last: third a'])
  })

  it('flushes a summary at the end of the minute by itself (a timer, not waiting for the next line)', () => {
    vi.useFakeTimers()
    try {
      const lines: string[] = []
      const log = createLogLimit({ write: (l) => lines.push(l) })
      for (let i = 0; i < 100; i++) log('x', 'boom')
      expect(lines).toEqual(['boom'])
      vi.advanceTimersByTime(60_000)
      expect(lines).toEqual(['boom', 'x: repeated 99 more times in the last 60 s; the last: boom'])
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('a checkpoint that cannot be written', () => {
  let dir: string
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('is said once, not at every entry of the log', () => {
    dir = mkdtempSync(join(tmpdir(), 'log-limit-'))
    const { location, keyFile } = testLedgerLocation(dir)
    const db = openLedger(location)
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      const audit = createAuditService({
        db,
        clock: () => new Date(),
        keys: openLedgerKey(db, location, { keyFile }),
        dbPath: location,
        keyFile,
      })
      audit.record('ada', 'emission.create', 'emission:1')
      // the file the checkpoint is written to before its rename is a folder: every write fails (as on a full disk)
      mkdirSync(`${checkpointFilePath(location, keyFile)}.${process.pid}-${threadId}.tmp`)
      for (let i = 0; i < 300; i++) audit.record('ada', 'emission.create', `emission:${i + 2}`)
      const lines = errors.mock.calls
        .map((c) => c.join(' '))
        .filter((l) => l.includes('cannot write the audit checkpoint'))
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/EISDIR/)
    } finally {
      errors.mockRestore()
      db.close()
    }
  })
})

/**
 * The command line's sales-feed imports: `carats sales import <file.jsonl>` imports a feed from
 * its file's bytes (read in place, on this thread), `carats sales imports` lists the imports
 * recorded in the ledger (the screen's import history), latest first.
 */
import { statSync } from 'node:fs'
import { basename } from 'node:path'
import { AppError } from '../contract/errors'
import type { ImportLineError, ImportRecord } from '../contract/types'
import { notUtf8Refusal, readFeedFile, STREAM_FROM_BYTES, warmFeedReader } from '../services/import'
import { type Command } from './io'
import { int, options, print, withBackend } from './command-kit'
import { UsageError } from './io'

export const salesImport: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { pos } = options(ctx, {}, 1)
    const file = pos[0]
    if (!file) throw new UsageError('name the JSONL file to import: carats sales import <file.jsonl>')
    let bytes: Buffer
    try {
      // a large feed's reader thread starts while the file is read
      if (statSync(file).size >= STREAM_FROM_BYTES) warmFeedReader()
      bytes = readFeedFile(file)
    } catch (e) {
      throw new UsageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`)
    }
    // the file's bytes, not decoded: the importer reads them in place and records the SHA-256 of
    // the file itself; a file that is not UTF-8 is refused rather than read with replacement
    // characters, as the importer refuses it, saying where it stops being UTF-8
    const notUtf8 = notUtf8Refusal(bytes, file)
    if (notUtf8) throw new UsageError(notUtf8.message)
    try {
      const r = b.services.importer.importHere(b.actor, bytes, basename(file))
      print(
        ctx,
        r,
        () =>
          `${basename(file)}: ${int(r.lines)} lines, ${int(r.imported)} sales imported, ${int(r.alreadyImported)} already imported`,
      )
      return 0
    } catch (e) {
      if (e instanceof AppError && e.code === 'IMPORT_REJECTED') {
        // every bad line, for whoever fixes the file: in the JSON document, or after the one-line error
        const details = e.extras.details as ImportLineError[]
        if (ctx.json) ctx.io.out(JSON.stringify({ ok: false, code: e.code, message: e.message, details }) + '\n')
        throw new AppError(
          'IMPORT_REJECTED',
          ctx.json ? e.message : `${e.message} (--json lists all ${details.length})`,
        )
      }
      throw e
    }
  })

/** An import's result in words, as the history says it. */
export function describeImportResult(r: ImportRecord): string {
  if (r.result === 'imported')
    return `imported ${int(r.imported)}${r.alreadyImported ? `, ${int(r.alreadyImported)} already recorded` : ''}`
  if (r.result === 'already') return 'already recorded'
  if (r.refusal)
    return `refused: ${{ FEED_EMPTY: 'empty file', FEED_NOT_UTF8: 'not UTF-8', FEED_TOO_LARGE: 'file too large' }[r.refusal] ?? r.refusal}`
  return `refused: ${int(r.badLines)} bad line${r.badLines === 1 ? '' : 's'}`
}

function importLine(r: ImportRecord): string {
  const lines = r.lines === null ? '-' : int(r.lines)
  return `${r.at}  ${r.actor}  ${r.fileName ?? '(no name)'}  ${lines} lines  ${describeImportResult(r)}\n    sha256 ${r.sha256 ?? '(not recorded)'}`
}

/** `carats sales imports [--limit N] [--page N]`: the imports, latest first. */
export const salesImports: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { values } = options(ctx, { limit: { type: 'string' }, page: { type: 'string' } })
    const count = (flag: string, text: string | undefined, fallback: number, max: number) => {
      if (text === undefined) return fallback
      if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max)
        throw new UsageError(`${flag} must be a whole number from 1 to ${max}, got ${JSON.stringify(text)}`)
      return Number(text)
    }
    const pageSize = count('--limit', values.limit, 20, 500)
    const page = count('--page', values.page, 1, 1_000_000)
    const h = b.services.importer.history({ page, pageSize })
    print(ctx, h, () => {
      if (h.total === 0) return 'no sales feed imported yet'
      const from = (page - 1) * pageSize + 1
      const head = `imports ${int(Math.min(from, h.total))}–${int(Math.min(from + h.items.length - 1, h.total))} of ${int(h.total)}, latest first`
      return [head, ...h.items.map(importLine)].join('\n')
    })
    return 0
  })

/**
 * The browser host's import route: a sales feed's bytes as the request's body (contract/feed.ts),
 * read into memory that the import's threads share, whole or (services/import/arrival.ts) handed
 * over as they arrive; the call's other arguments from their header; the size limit's refusal.
 */
import type { IncomingMessage } from 'node:http'
import { AppError, because } from '../contract/errors'
import { BYTES_ARGS_HEADER } from '../contract/feed'
import { FeedArrival, registerArrival } from '../services/import'
import { HttpFailure } from './http-failure'

/**
 * A body of bytes, read into memory that threads can share (the import's worker and its reader
 * read it in place): straight into it when its length is declared, else gathered and copied once.
 */
export function readBytesBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN)
  if (declared > limit) return Promise.reject(feedTooLarge(declared, limit))
  return new Promise((resolveBody, reject) => {
    const known = Number.isInteger(declared) && declared >= 0
    let into = known ? Buffer.from(new SharedArrayBuffer(declared)) : null
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const fail = (e: unknown) => {
      if (done) return
      done = true
      reject(e)
    }
    req.on('data', (chunk: Buffer) => {
      if (done) return
      if (size + chunk.length > limit) return fail(feedTooLarge(size + chunk.length, limit))
      if (into && size + chunk.length > into.length)
        return fail(new HttpFailure(400, 'BAD_ARGUMENTS', 'the body is longer than its Content-Length'))
      if (into) into.set(chunk, size)
      else chunks.push(chunk)
      size += chunk.length
    })
    req.on('end', () => {
      if (done) return
      done = true
      if (!into) {
        into = Buffer.from(new SharedArrayBuffer(size))
        let at = 0
        for (const c of chunks) {
          into.set(c, at)
          at += c.length
        }
      }
      resolveBody(size === into.length ? into : into.subarray(0, size))
    })
    req.on('error', fail)
  })
}

/** A body of bytes handed over before it is in: its bytes, their arrival, and the upload's end. */
export interface ArrivingBody {
  bytes: Buffer
  /** Resolves once the body is all in; rejects when it stops short (the arrival is cut then). */
  done: Promise<void>
}

/**
 * A body of bytes of declared length, read into shared memory as it arrives, each chunk published
 * to the import's threads (FeedArrival); null when its length is not declared (read it whole).
 * A body that stops short (the client gone, the request's time up) cuts the arrival: the import
 * waiting for its bytes fails and writes nothing.
 */
export function arrivingBytesBody(req: IncomingMessage, limit: number): ArrivingBody | null {
  const declared = Number(req.headers['content-length'] ?? NaN)
  if (!Number.isInteger(declared) || declared < 0) return null
  if (declared > limit) throw feedTooLarge(declared, limit)
  const bytes = Buffer.from(new SharedArrayBuffer(declared))
  const arrival = FeedArrival.create(declared)
  registerArrival(bytes, arrival)
  let size = 0
  const done = new Promise<void>((resolveBody, reject) => {
    const stop = (e: Error) => {
      arrival.cut()
      reject(e)
    }
    req.on('data', (chunk: Buffer) => {
      if (size + chunk.length > declared) {
        stop(new HttpFailure(400, 'BAD_ARGUMENTS', 'the body is longer than its Content-Length'))
        return void req.destroy()
      }
      bytes.set(chunk, size)
      size += chunk.length
      arrival.publish(size)
    })
    req.on('end', () => resolveBody())
    req.on('error', stop)
    req.on('close', () => {
      if (size < declared) stop(new Error(`the upload stopped after ${size} of ${declared} bytes`))
    })
  })
  done.catch(() => {})
  return { bytes, done }
}

/** The call's other arguments, beside a body of bytes: URI-encoded JSON of an object, or none. */
export function bytesArgs(header: string | string[] | undefined): Record<string, unknown> {
  if (header === undefined) return {}
  let value: unknown
  try {
    value = JSON.parse(decodeURIComponent(Array.isArray(header) ? header.join('') : header))
  } catch {
    throw new HttpFailure(
      400,
      'BAD_ARGUMENTS',
      `the ${BYTES_ARGS_HEADER} header must be URI-encoded JSON of the call's other arguments`,
    )
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new HttpFailure(400, 'BAD_ARGUMENTS', `the ${BYTES_ARGS_HEADER} header must hold a JSON object`)
  return value as Record<string, unknown>
}

export function feedTooLarge(bytes: number, limit: number): HttpFailure {
  const mib = (n: number) => Math.round((n / (1024 * 1024)) * 10) / 10
  const { message, reason } = new AppError(
    'BAD_ARGUMENTS',
    `the file is ${mib(bytes)} MiB, more than the ${mib(limit)} MiB an import takes: split it into smaller files`,
    because('FEED_TOO_LARGE', { mib: Math.ceil(bytes / 2 ** 20), maxMib: Math.floor(limit / 2 ** 20) }),
  ).toData()
  return new HttpFailure(413, 'BAD_ARGUMENTS', message, { Connection: 'close' }, reason)
}

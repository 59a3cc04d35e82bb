/**
 * The host's /api: POST only, a JSON body {"args": …} of bounded size, or a sales feed's bytes as
 * the body itself (contract/feed.ts BYTES_BODIES); a channel that needs a session is refused
 * before its body is read unless the bearer token is a live session (server.ts says why).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { AppError, because } from '../contract/errors'
import { BYTES_ARGS_HEADER, BYTES_BODIES, BYTES_CONTENT_TYPE } from '../contract/feed'
import { arrivingBytesBody, bytesArgs, readBytesBody } from './feed-body'
import { HttpFailure } from './http-failure'
import { sendEnvelope, type HostContext } from './host-replies'

export const API_PREFIX = '/api/'

let channelNames: Promise<Map<string, boolean>> | undefined
/**
 * The contract's channel names, each with whether it is public (callable without a session),
 * loaded at the first api call: building the contract's argument schemas is work the host need
 * not do before it listens (the backend builds them anyway).
 */
function knownChannels(): Promise<Map<string, boolean>> {
  channelNames ??= import('../contract').then((c) => new Map<string, boolean>(c.CHANNEL_NAMES.map((n) => [n, c.contract[n].access === 'public'])))
  return channelNames
}

/** The dispatcher's own refusal of a call that needs a session (contract/dispatch.ts). */
function notSignedIn(): HttpFailure {
  const { message, reason } = new AppError('NOT_SIGNED_IN', 'your session has ended: sign in again', because('SESSION_ENDED')).toData()
  return new HttpFailure(200, 'NOT_SIGNED_IN', message, {}, reason)
}

function bearerToken(header: string | undefined): string | null {
  if (!header) return null
  const m = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header)
  return m ? m[1] : null
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length']
  if (declared !== undefined && Number(declared) > limit) {
    return Promise.reject(tooLarge(limit))
  }
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    req.on('data', (chunk: Buffer) => {
      if (done) return
      size += chunk.length
      if (size > limit) {
        done = true
        reject(tooLarge(limit))
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => {
      if (done) return
      done = true
      resolveBody(Buffer.concat(chunks))
    })
    req.on('error', (e) => {
      if (done) return
      done = true
      reject(e)
    })
  })
}

function tooLarge(limit: number): HttpFailure {
  const mib = Math.round((limit / (1024 * 1024)) * 10) / 10
  return new HttpFailure(413, 'BAD_ARGUMENTS', `the request is larger than ${mib} MiB: split the import into smaller files`, {
    Connection: 'close',
  })
}

/** The channel the address names, and whether it is public; refused when the contract has no such channel. */
async function channelOf(pathname: string): Promise<{ channel: string; isPublic: boolean }> {
  let channel: string
  try {
    channel = decodeURIComponent(pathname.slice(API_PREFIX.length))
  } catch {
    throw new HttpFailure(400, 'UNKNOWN_CHANNEL', 'the channel name in the address is not valid')
  }
  const isPublic = (await knownChannels()).get(channel)
  if (isPublic === undefined) {
    throw new HttpFailure(404, 'UNKNOWN_CHANNEL', `unknown channel ${JSON.stringify(channel)}`)
  }
  return { channel, isPublic }
}

export async function handleApi(ctx: HostContext, req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  if (req.method !== 'POST') {
    throw new HttpFailure(405, 'BAD_ARGUMENTS', 'the api takes POST requests only', { Allow: 'POST' })
  }
  const { channel, isPublic } = await channelOf(pathname)
  const token = bearerToken(req.headers.authorization)
  // Before the body: only a live session (or a public channel) makes the host read one.
  // The dispatcher checks the session again, with the role, once the body is in.
  if (!isPublic && (token === null || !(await ctx.hasSession(token)))) throw notSignedIn()
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
  const bytesField = BYTES_BODIES[channel]
  if (bytesField && type === BYTES_CONTENT_TYPE) return handleBytesBody(ctx, req, res, { channel, token, bytesField })
  if (type !== 'application/json') throw wrongContentType(type, bytesField)
  const args = await readJsonArgs(req, ctx.limit)
  const envelope = await ctx.opts.backend.dispatch(channel, args, token)
  sendEnvelope(ctx, res, 200, envelope)
}

/** A feed's bytes as the body: the importer reads them in place. */
async function handleBytesBody(ctx: HostContext, req: IncomingMessage, res: ServerResponse, call: { channel: string; token: string | null; bytesField: string }): Promise<void> {
  const { opts, bytesLimit } = ctx
  const { channel, token, bytesField } = call
  const args = bytesArgs(req.headers[BYTES_ARGS_HEADER])
  const arriving = opts.importWhileUploading ? arrivingBytesBody(req, bytesLimit) : null
  if (arriving) {
    const envelope = await opts.backend.dispatch(channel, { ...args, [bytesField]: arriving.bytes }, token)
    // a body cut short: the client is gone (or Node answered 408), the import failed
    if (!(await arriving.done.then(() => true, () => false))) return
    sendEnvelope(ctx, res, 200, envelope)
    return
  }
  const bytes = await readBytesBody(req, bytesLimit)
  sendEnvelope(ctx, res, 200, await opts.backend.dispatch(channel, { ...args, [bytesField]: bytes }, token))
}

function wrongContentType(type: string, bytesField: string | undefined): HttpFailure {
  if (bytesField) {
    const { message, reason } = new AppError('BAD_ARGUMENTS', `send the file's bytes as ${BYTES_CONTENT_TYPE} (or the call as application/json), not ${type || 'no content type'}`, because('FEED_CONTENT_TYPE', { type: type || '—' })).toData()
    return new HttpFailure(415, 'BAD_ARGUMENTS', message, {}, reason)
  }
  return new HttpFailure(415, 'BAD_ARGUMENTS', 'the request body must be JSON (Content-Type: application/json)')
}

/** The call's arguments: the body read within the limit, a JSON object {"args": …}. */
async function readJsonArgs(req: IncomingMessage, limit: number): Promise<unknown> {
  const raw = await readBody(req, limit)
  let body: unknown
  try {
    body = raw.length === 0 ? {} : JSON.parse(raw.toString('utf8'))
  } catch (e) {
    throw new HttpFailure(400, 'BAD_ARGUMENTS', `the request body is not valid JSON (${e instanceof Error ? e.message : String(e)})`)
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new HttpFailure(400, 'BAD_ARGUMENTS', 'the request body must be a JSON object {"args": ...}')
  }
  return (body as { args?: unknown }).args
}

/**
 * The host's /api: POST only, a JSON body {"args": …} of bounded size, or a sales feed's bytes as
 * the body itself (contract/feed.ts BYTES_BODIES); a channel that needs a session is refused
 * before its body is read unless the bearer token is a live session whose role may call it, and
 * a body is read no further than its channel needs (bodyLimit; server.ts says why).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { mayCall, type Access } from '../contract/define'
import { AppError, because } from '../contract/errors'
import { BYTES_ARGS_HEADER, BYTES_BODIES, BYTES_CONTENT_TYPE } from '../contract/feed'
import { arrivingBytesBody, bytesArgs, readBytesBody } from './feed-body'
import { HttpFailure, notSignedIn } from './http-failure'
import { sendEnvelope, type HostContext } from './host-replies'

export const API_PREFIX = '/api/'

let channelNames: Promise<Map<string, Access>> | undefined
/**
 * The contract's channel names, each with who may call it (public: without a session), loaded
 * at the first api call: building the contract's argument schemas is work the host need not do
 * before it listens (the backend builds them anyway).
 */
function knownChannels(): Promise<Map<string, Access>> {
  channelNames ??= import('../contract').then(
    (c) => new Map<string, Access>(c.CHANNEL_NAMES.map((n) => [n, c.contract[n].access])),
  )
  return channelNames
}

/** The dispatcher's own refusal of a call the session's role may not make (contract/dispatch.ts). */
function forbidden(role: string, channel: string): HttpFailure {
  const { message, reason } = new AppError(
    'FORBIDDEN',
    `the ${role} role may not use ${channel}`,
    because('ROLE_FORBIDDEN', { role, channel }),
  ).toData()
  return new HttpFailure(200, 'FORBIDDEN', message, {}, reason)
}

/**
 * How much of a call's JSON body is read: a few KiB for a public channel, the whole JSON limit
 * for a channel that takes a feed (sales:import), 1 MiB for any other.
 */
export function bodyLimit(
  ctx: Pick<HostContext, 'limit' | 'publicLimit' | 'signedInLimit'>,
  channel: string,
  access: Access,
): number {
  if (access === 'public') return ctx.publicLimit
  return BYTES_BODIES[channel] ? ctx.limit : ctx.signedInLimit
}

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null
  const m = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header)
  return m ? m[1] : null
}

function readBody(req: IncomingMessage, limit: number, channel: string): Promise<Buffer> {
  const declared = req.headers['content-length']
  if (declared !== undefined && Number(declared) > limit) {
    return Promise.reject(tooLarge(Number(declared), limit, channel))
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
        chunks.length = 0
        reject(tooLarge(size, limit, channel))
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

/** A body beyond its channel's limit (`size`: what was declared or read so far): 413, the connection closed. */
function tooLarge(size: number, limit: number, channel: string): HttpFailure {
  const kib = (n: number) => Math.ceil(n / 1024)
  const split = BYTES_BODIES[channel] ? ': split the import into smaller files' : ''
  const { message, reason } = new AppError(
    'BAD_ARGUMENTS',
    `the request is larger than the ${kib(limit)} KiB ${channel} takes${split}`,
    because('REQUEST_TOO_LARGE', { kib: kib(size), maxKib: kib(limit) }),
  ).toData()
  return new HttpFailure(413, 'BAD_ARGUMENTS', message, { Connection: 'close' }, reason)
}

/** The channel the address names, and who may call it; refused when the contract has no such channel. */
async function channelOf(pathname: string): Promise<{ channel: string; access: Access }> {
  let channel: string
  try {
    channel = decodeURIComponent(pathname.slice(API_PREFIX.length))
  } catch {
    throw new HttpFailure(400, 'UNKNOWN_CHANNEL', 'the channel name in the address is not valid')
  }
  const access = (await knownChannels()).get(channel)
  if (access === undefined) {
    throw new HttpFailure(404, 'UNKNOWN_CHANNEL', `unknown channel ${JSON.stringify(channel)}`)
  }
  return { channel, access }
}

/** Before the body: only a live session whose role may call the channel (or a public channel) makes the host read one. */
async function checkBeforeBody(ctx: HostContext, channel: string, access: Access, token: string | null): Promise<void> {
  if (access === 'public') return
  const caller = token === null ? null : await ctx.callerOf(token)
  if (!caller) throw notSignedIn(200)
  if (!mayCall(access, caller.role)) throw forbidden(caller.role, channel)
}

export async function handleApi(
  ctx: HostContext,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<void> {
  if (req.method !== 'POST') {
    throw new HttpFailure(405, 'BAD_ARGUMENTS', 'the api takes POST requests only', { Allow: 'POST' })
  }
  const { channel, access } = await channelOf(pathname)
  const token = bearerToken(req.headers.authorization)
  // The dispatcher checks the session and its role again once the body is in.
  await checkBeforeBody(ctx, channel, access, token)
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
  const bytesField = BYTES_BODIES[channel]
  if (bytesField && type === BYTES_CONTENT_TYPE) return handleBytesBody(ctx, req, res, { channel, token, bytesField })
  if (type !== 'application/json') throw wrongContentType(type, bytesField)
  const args = await readJsonArgs(req, bodyLimit(ctx, channel, access), channel)
  const envelope = await ctx.opts.backend.dispatch(channel, args, token)
  sendEnvelope(ctx, res, 200, envelope)
}

/** A feed's bytes as the body: the importer reads them in place. */
async function handleBytesBody(
  ctx: HostContext,
  req: IncomingMessage,
  res: ServerResponse,
  call: { channel: string; token: string | null; bytesField: string },
): Promise<void> {
  const { opts, bytesLimit } = ctx
  const { channel, token, bytesField } = call
  const args = bytesArgs(req.headers[BYTES_ARGS_HEADER])
  const arriving = opts.importWhileUploading ? arrivingBytesBody(req, bytesLimit) : null
  if (arriving) {
    const envelope = await opts.backend.dispatch(channel, { ...args, [bytesField]: arriving.bytes }, token)
    // a body cut short: the client is gone (or Node answered 408), the import failed
    if (
      !(await arriving.done.then(
        () => true,
        () => false,
      ))
    )
      return
    sendEnvelope(ctx, res, 200, envelope)
    return
  }
  const bytes = await readBytesBody(req, bytesLimit)
  sendEnvelope(ctx, res, 200, await opts.backend.dispatch(channel, { ...args, [bytesField]: bytes }, token))
}

function wrongContentType(type: string, bytesField: string | undefined): HttpFailure {
  if (bytesField) {
    const { message, reason } = new AppError(
      'BAD_ARGUMENTS',
      `send the file's bytes as ${BYTES_CONTENT_TYPE} (or the call as application/json), not ${type || 'no content type'}`,
      because('FEED_CONTENT_TYPE', { type: type || '—' }),
    ).toData()
    return new HttpFailure(415, 'BAD_ARGUMENTS', message, {}, reason)
  }
  return new HttpFailure(415, 'BAD_ARGUMENTS', 'the request body must be JSON (Content-Type: application/json)')
}

/** The call's arguments: the body read within the limit, a JSON object {"args": …}. */
async function readJsonArgs(req: IncomingMessage, limit: number, channel: string): Promise<unknown> {
  const raw = await readBody(req, limit, channel)
  let body: unknown
  try {
    body = raw.length === 0 ? {} : JSON.parse(raw.toString('utf8'))
  } catch (e) {
    throw new HttpFailure(
      400,
      'BAD_ARGUMENTS',
      `the request body is not valid JSON (${e instanceof Error ? e.message : String(e)})`,
    )
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new HttpFailure(400, 'BAD_ARGUMENTS', 'the request body must be a JSON object {"args": ...}')
  }
  return (body as { args?: unknown }).args
}

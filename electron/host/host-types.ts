/**
 * What the browser host is made with: its backend and its options (server.ts createHost), apart
 * so that the host's parts (host-api.ts, host-replies.ts) read them without importing the server.
 */
import type { Envelope } from '../contract/errors'
import type { Role } from '../contract/define'
import type { ChangeSource } from '../app/change-feed'

/** The part of the backend's users service the host asks before reading a body. */
interface SessionLookup {
  /** The role of a live session's account, else null (services.users.sessionRole). */
  sessionRole(token: string | null): { role: Role } | null
  /** A live session's account and role, not counted as activity (services.users.sessionPeek): the events' check. */
  sessionPeek?(token: string | null): { userId: number; role: Role } | null
}

export interface HostBackend {
  dispatch(channel: string, args: unknown, token: string | null): Promise<Envelope<unknown>>
  /**
   * How the host asks whether a bearer token is a live session before it reads a body: the
   * backend's services (an open Backend), or open() giving them (the lazy backend, opened at the
   * first call). One of the two is required: createHost refuses a backend with neither.
   */
  services?: { users: SessionLookup }
  open?(): Promise<{ services: { users: SessionLookup }; changes?: ChangeSource | null }>
  /** What changes in the ledger, streamed to the pages at /events (host-events.ts); absent: no stream. */
  changes?: ChangeSource | null
}

export interface HostOptions {
  backend: HostBackend
  /** The built renderer (out/renderer). */
  staticDir: string
  /** 0 or absent: any free port. */
  port?: number
  /** Largest /api JSON body accepted, in bytes, an import's text (HOST_LIMITS.maxBodyBytes); it caps the two below too. */
  maxBodyBytes?: number
  /** Largest body of a public channel's call (HOST_LIMITS.publicBodyBytes). */
  publicBodyBytes?: number
  /** Largest body of a signed-in caller's call other than an import (HOST_LIMITS.signedInBodyBytes). */
  signedInBodyBytes?: number
  /** Largest body of bytes (a sales feed's) accepted (HOST_LIMITS.maxBytesBodyBytes). */
  maxBytesBodyBytes?: number
  /** Connections at once (HOST_LIMITS.maxConnections). */
  maxConnections?: number
  /** Time for a request's headers to arrive (HOST_LIMITS.headersTimeoutMs). */
  headersTimeoutMs?: number
  /** Time for a whole request, headers and body, to arrive (HOST_LIMITS.requestTimeoutMs). */
  requestTimeoutMs?: number
  /** Time an idle keep-alive connection stays open (HOST_LIMITS.keepAliveTimeoutMs). */
  keepAliveTimeoutMs?: number
  /** Where unexpected failures are reported. */
  onError?: (error: unknown) => void
  /**
   * A sales feed's bytes of declared length are handed to the backend as soon as its headers are
   * in, and read by the import while they arrive (services/import/arrival.ts): for a backend whose
   * sales:import is the import worker's (app/backend.ts), which waits for the bytes it
   * reaches. Off, the host hands the bytes over once they are all in.
   */
  importWhileUploading?: boolean
  /** The streams of changes' limits (host-events.ts EVENT_LIMITS), lowered by tests. */
  eventLimits?: { perSession?: number; heartbeatMs?: number; maxBufferedBytes?: number }
}

/**
 * Resolving a request path to a file of the built renderer, shared by the browser host and the
 * Electron shell's app:// scheme: no way out of the static folder, no dotfiles, correct MIME
 * types, and index.html for paths that look like screens rather than files.
 */
import { realpath, stat } from 'node:fs/promises'
import { extname, isAbsolute, relative, resolve, sep } from 'node:path'

const MIME_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
}

export function mimeType(file: string): string {
  return MIME_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream'
}

export interface StaticFile {
  /** Absolute path of the file to send. */
  file: string
  contentType: string
  size: number
  /** index.html, whether asked for or given as the fallback for a screen's path. */
  isIndex: boolean
  /** Vite's hashed output under assets/: safe to cache for ever. */
  immutable: boolean
}

export type StaticResult = { found: StaticFile } | { status: 400 | 404 }

function inside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

async function fileAt(root: string, path: string, isIndex: boolean): Promise<StaticFile | null> {
  try {
    const real = await realpath(path)
    if (!inside(root, real)) return null
    const st = await stat(real)
    if (!st.isFile()) return null
    const rel = relative(root, real).split(sep).join('/')
    return { file: real, contentType: mimeType(real), size: st.size, isIndex, immutable: rel.startsWith('assets/') }
  } catch {
    return null
  }
}

/**
 * The file for the URL path `pathname` (already without query or hash) under `staticDir`.
 * A path without an extension that names no file is a screen of the app: index.html answers it.
 */
export async function resolveStatic(staticDir: string, pathname: string): Promise<StaticResult> {
  let decoded: string
  try {
    decoded = decodeURIComponent(pathname)
  } catch {
    return { status: 400 }
  }
  if (!decoded.startsWith('/') || decoded.includes('\0') || decoded.includes('\\')) return { status: 400 }
  const segments = decoded.split('/').filter((s) => s.length > 0)
  if (segments.some((s) => s === '..' || s.startsWith('.'))) return { status: 404 }

  const root = await realpath(staticDir).catch(() => resolve(staticDir))
  const indexFile = resolve(root, 'index.html')
  if (segments.length === 0) {
    const index = await fileAt(root, indexFile, true)
    return index ? { found: index } : { status: 404 }
  }
  const target = resolve(root, ...segments)
  if (!inside(root, target)) return { status: 404 }
  const direct = await fileAt(root, target, target === indexFile)
  if (direct) return { found: direct }
  if (extname(segments[segments.length - 1]) === '') {
    const index = await fileAt(root, indexFile, true)
    if (index) return { found: index }
  }
  return { status: 404 }
}

#!/usr/bin/env node
/**
 * Moves source files (git mv) and rewrites every relative import that names them, and every
 * relative import inside them, so that the code means what it meant. A development tool for
 * reshaping the house (docs/ARCHITECTURE.md): run it, then `npm run typecheck` and the tests.
 *
 *   node scripts/move-modules.mjs old/path.ts=new/path.ts [more…]
 *   node scripts/move-modules.mjs --plan moves.txt      (one "old new" pair per line)
 *   node scripts/move-modules.mjs --entrance electron/services/import
 *     every import from outside the folder of a file inside it goes through the folder's
 *     index.ts instead, and index.ts exports what they take (written, or added to)
 *
 * It reads the specifiers of `import … from`, `export … from`, `import(…)`, `require(…)` and
 * `vi.mock(…)`/`vi.importActual(…)`; anything else that names a path (a worker's file name, a
 * path joined at run time) is for the mover to find (it lists the moved files' base names that
 * still appear in quotes elsewhere).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, extname, join, relative, resolve } from 'node:path'

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..')
const SOURCE_DIRS = ['electron', 'renderer', 'game-core', 'test', 'scripts', 'tools']
const SOURCE_EXT = new Set(['.ts', '.mts', '.cts', '.tsx', '.vue', '.mjs', '.js', '.cjs'])
const RESOLVE_EXT = ['', '.ts', '.mts', '.tsx', '.vue', '.mjs', '.js', '/index.ts']
const SPECIFIER =
  /(\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bvi\.(?:mock|importActual|doMock)\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]*)\2/gm

function sourceFiles(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'out' || name.startsWith('.')) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) sourceFiles(path, out)
    else if (SOURCE_EXT.has(extname(name))) out.push(path)
  }
  return out
}

/** The file a relative specifier names, or null. */
function resolveSpecifier(fromFile, spec) {
  const base = resolve(dirname(fromFile), spec)
  for (const ext of RESOLVE_EXT) {
    const p = base + ext
    if (existsSync(p) && statSync(p).isFile()) return { file: p, ext }
  }
  return null
}

/** The specifier from `fromFile` to `target`, written the way the original was (its extension kept or not). */
function specifierTo(fromFile, target, ext) {
  let to = target
  if (ext === '/index.ts') to = dirname(target)
  else if (ext !== '') to = target.slice(0, -ext.length)
  let rel = relative(dirname(fromFile), to)
  if (!rel.startsWith('.')) rel = `./${rel}`
  return rel
}

function readMoves(argv) {
  const pairs = []
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--plan') {
      for (const line of readFileSync(argv[++i], 'utf8').split('\n')) {
        const [from, to] = line.trim().split(/\s+/)
        if (from && to && !from.startsWith('#')) pairs.push([from, to])
      }
    } else {
      const [from, to] = argv[i].split('=')
      pairs.push([from, to])
    }
  }
  return new Map(pairs.map(([from, to]) => [resolve(ROOT, from), resolve(ROOT, to)]))
}

const NAMED_IMPORT = /^(import|export)(\s+type)?\s*\{([^}]*)\}\s*from\s*(['"])(\.{1,2}\/[^'"]*)\4;?[ \t]*$/gm

/** The names of an import's braces: { name (as exported), local text, type }. */
function namesOf(braces, allType) {
  return braces
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean)
    .map((text) => {
      const type = allType || text.startsWith('type ')
      const bare = text.replace(/^type\s+/, '')
      return { name: bare.split(/\s+as\s+/)[0], text: bare, type }
    })
}

function entrance(folderArg) {
  const folder = resolve(ROOT, folderArg)
  const index = join(folder, 'index.ts')
  const files = SOURCE_DIRS.flatMap((d) => (existsSync(join(ROOT, d)) ? sourceFiles(join(ROOT, d)) : []))
  /** inner file -> name -> type only */
  const exported = new Map()
  let rewritten = 0
  for (const file of files) {
    if (file.startsWith(folder + '/')) continue
    const text = readFileSync(file, 'utf8')
    const merged = new Map()
    let changed = false
    let next = text.replace(NAMED_IMPORT, (all, verb, typeAll, braces, quote, spec) => {
      const found = resolveSpecifier(file, spec)
      if (!found || !found.file.startsWith(folder + '/') || found.file === index) return all
      const names = namesOf(braces, Boolean(typeAll))
      const mine = exported.get(found.file) ?? new Map()
      for (const n of names) mine.set(n.name, (mine.get(n.name) ?? true) && n.type)
      exported.set(found.file, mine)
      changed = true
      if (verb === 'export') return `export {${braces}} from ${quote}${specifierTo(file, index, '/index.ts')}${quote}`
      const key = `${specifierTo(file, index, '/index.ts')}`
      const list = merged.get(key) ?? []
      list.push(...names.map((n) => (n.type && !typeAll ? `type ${n.text}` : typeAll ? `type ${n.text}` : n.text)))
      merged.set(key, list)
      return `@@import:${key}@@`
    })
    for (const [key, list] of merged) {
      const allType = list.every((t) => t.startsWith('type '))
      const items = allType ? list.map((t) => t.slice(5)) : list
      const line = `import ${allType ? 'type ' : ''}{ ${[...new Set(items)].join(', ')} } from '${key}'`
      let first = true
      next = next.replace(new RegExp(`@@import:${key.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}@@\\n?`, 'g'), () => {
        if (!first) return ''
        first = false
        return `${line}\n`
      })
    }
    if (changed) {
      writeFileSync(file, next)
      rewritten++
    }
  }
  const lines = existsSync(index) ? readFileSync(index, 'utf8').trimEnd().split('\n') : []
  for (const [file, names] of [...exported].sort((a, b) => a[0].localeCompare(b[0]))) {
    const spec = specifierTo(index, file, extname(file) === '.ts' ? '.ts' : '')
    const values = [...names]
      .filter(([, type]) => !type)
      .map(([n]) => n)
      .sort()
    const types = [...names]
      .filter(([, type]) => type)
      .map(([n]) => n)
      .sort()
    if (values.length) lines.push(`export { ${values.join(', ')} } from '${spec}'`)
    if (types.length) lines.push(`export type { ${types.join(', ')} } from '${spec}'`)
  }
  writeFileSync(index, lines.join('\n') + '\n')
  console.log(
    `rewrote ${rewritten} file(s); ${relative(ROOT, index)} exports from ${exported.size} file(s): merge its lines by hand if it had some`,
  )
}

function main() {
  if (process.argv[2] === '--entrance') return entrance(process.argv[3])
  const moves = readMoves(process.argv.slice(2))
  if (moves.size === 0) throw new Error('nothing to move: give old=new pairs or --plan <file>')
  for (const from of moves.keys()) if (!existsSync(from)) throw new Error(`${relative(ROOT, from)} does not exist`)
  const files = SOURCE_DIRS.flatMap((d) => (existsSync(join(ROOT, d)) ? sourceFiles(join(ROOT, d)) : []))
  // every file's new text, computed from the old tree before anything moves
  const rewritten = new Map()
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    const newHome = moves.get(file) ?? file
    let changed = false
    const next = text.replace(SPECIFIER, (all, lead, quote, spec) => {
      const found = resolveSpecifier(file, spec)
      if (!found) return all
      const target = moves.get(found.file) ?? found.file
      if (target === found.file && newHome === file) return all
      const respec = specifierTo(newHome, target, found.ext)
      if (respec === spec) return all
      changed = true
      return `${lead}${quote}${respec}${quote}`
    })
    if (changed || newHome !== file) rewritten.set(newHome, next)
  }
  for (const [from, to] of moves) {
    execFileSync('mkdir', ['-p', dirname(to)])
    execFileSync('git', ['mv', from, to], { cwd: ROOT })
  }
  for (const [file, text] of rewritten) writeFileSync(file, text)
  console.log(`moved ${moves.size} file(s), rewrote ${rewritten.size} file(s)`)
  const names = [...moves.keys()].map((f) => relative(ROOT, f).replace(/\.[^.]+$/, ''))
  for (const name of names) {
    const bare = name.split('/').pop()
    const out = spawnGrep(`['"/]${bare}['".]`)
    if (out) console.log(`still named "${bare}" in:\n${out}`)
  }
}

function spawnGrep(pattern) {
  try {
    return execFileSync('git', ['grep', '-nE', pattern, '--', ...SOURCE_DIRS, '*.md', '*.json', '*.config.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((l) => l && !/\bfrom ['"]|import\(|require\(/.test(l))
      .slice(0, 20)
      .join('\n')
  } catch {
    return ''
  }
}

main()

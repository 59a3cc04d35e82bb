/**
 * The layers of electron/ and the domains' entrances, as an ESLint rule (eslint.config.mjs) and
 * as plain functions for test/integration/layering.test.ts (docs/DESIGN.md, "The layers").
 *
 * Imports point down only:
 *   entry points (workers, host, cli, main, preload) → app → services → ledger
 *     → threads, crypto, contract, game-core
 * and a domain of electron/services (a folder) is entered through its index.ts alone: from
 * outside the folder, no import names a file inside it. The app's code imports nothing from test/.
 *
 * test/integration/layering.test.ts also walks every file: no import goes up (upwardImports) and
 * no circle of imports exists (importCycles).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'

export const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..')

/** Each folder's rank: an import may go to the same rank or below, never above. */
const RANKS = [
  ['game-core', 0],
  ['electron/contract', 0],
  ['electron/crypto', 0],
  ['electron/threads', 0],
  ['electron/ledger', 1],
  ['electron/services', 2],
  ['electron/app', 3],
  ['electron/workers', 4],
  ['electron/host', 4],
  ['electron/cli', 4],
  ['electron/main', 4],
  ['electron/preload', 4],
]

const posix = (p) => p.split(sep).join('/')

/** The rank of a path from the root, or null when it is in no layer (tests, scripts, the renderer). */
export function rankOf(path) {
  for (const [folder, rank] of RANKS) if (path === folder || path.startsWith(`${folder}/`)) return rank
  return null
}

/** The domain folder of electron/services a path is in (`electron/services/import`), or null. */
export function domainOf(path) {
  const m = /^electron\/services\/([^/]+)\//.exec(path)
  if (!m) return null
  const folder = `electron/services/${m[1]}`
  return existsSync(resolve(ROOT, folder)) && statSync(resolve(ROOT, folder)).isDirectory() ? folder : null
}

/**
 * What is wrong with an import of `specifier` from the file `fromAbs`, or null. Only relative
 * specifiers are judged (packages and node: have rules of their own in eslint.config.mjs).
 */
export function layeringProblem(fromAbs, specifier) {
  if (!specifier.startsWith('.')) return null
  const from = posix(relative(ROOT, fromAbs)).replace(/\.[^./]+$/, '')
  const to = posix(relative(ROOT, resolve(dirname(fromAbs), specifier))).replace(/\.(ts|mts|js|mjs|vue)$/, '')
  const domain = domainOf(`${to}/`)
  if (domain && to !== domain && to !== `${domain}/index` && !from.startsWith(`${domain}/`)) {
    return `${to} is inside the domain ${domain}: import it from '${posix(relative(dirname(fromAbs), resolve(ROOT, domain)))}' (its index.ts), which says what the domain offers`
  }
  if (to.startsWith('test/') && rankOf(from) !== null && !/\.test$/.test(from)) {
    return `${from} imports ${to}: the app's code takes nothing from the tests (fixtures live in test/support, for tests only)`
  }
  const a = rankOf(from)
  const b = rankOf(to)
  if (a === null || b === null || b <= a || /\.test$/.test(from)) return null
  return `${from} imports ${to}, a layer above it: imports point down (entry points → app → services → ledger → contract, threads, game-core)`
}

/** The ESLint rule: every import, export … from and import() of a file judged by layeringProblem. */
export const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'imports point down, and a domain is entered through its index.ts' },
    schema: [],
  },
  create(context) {
    const check = (source) => {
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return
      const problem = layeringProblem(context.filename, source.value)
      if (problem) context.report({ node: source, message: problem })
    }
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    }
  },
}

/*
 * Circles of imports among electron/'s files (tests left out), type-only imports included: each
 * circle as its files from the root, sorted (importCycles).
 */

const IMPORTED = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]*)\1/gm

function sourceFilesOf(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) sourceFilesOf(path, out)
    else if (/\.ts$/.test(name) && !/\.(test|d)\.ts$/.test(name)) out.push(path)
  }
  return out
}

function resolveFile(from, spec) {
  const base = resolve(dirname(from), spec)
  for (const ext of ['.ts', '/index.ts', '']) {
    const p = base + ext
    if (existsSync(p) && statSync(p).isFile()) return p
  }
  return null
}

/** `import { a, type B as C } from '…'` and `export { … } from '…'`: the names and the specifier. */
const NAMED = /(?:import|export)(?:\s+type)?\s*\{([^}]*)\}\s*from\s*(['"])(\.{1,2}\/[^'"]*)\2/g
const namesIn = (braces) =>
  braces
    .split(',')
    .map(
      (n) =>
        n
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0],
    )
    .filter(Boolean)

/** A domain's index.ts: each name it exports, and the file that name comes from. */
function indexExports(index) {
  const from = new Map()
  for (const m of readFileSync(index, 'utf8').matchAll(NAMED)) {
    const file = resolveFile(index, m[3])
    if (file) for (const name of namesIn(m[1])) from.set(name, file)
  }
  return from
}

/**
 * The files `file` imports. An import of a domain's index.ts is taken as an import of the files
 * its names come from (the index only passes them on): a domain's entrance makes no circle of its own.
 */
function importedFiles(file, indexes) {
  const text = readFileSync(file, 'utf8')
  const targets = new Set()
  const spans = []
  for (const m of text.matchAll(NAMED)) {
    spans.push([m.index, m.index + m[0].length])
    const t = resolveFile(file, m[3])
    if (!t) continue
    if (!t.endsWith('/index.ts') || !t.includes('/services/')) {
      targets.add(t)
      continue
    }
    if (!indexes.has(t)) indexes.set(t, indexExports(t))
    for (const name of namesIn(m[1])) targets.add(indexes.get(t).get(name) ?? t)
  }
  // the other forms (side effects, import(), import * as) depend on the whole file they name
  for (const m of text.matchAll(IMPORTED)) {
    if (spans.some(([from, to]) => m.index >= from && m.index < to)) continue
    const t = resolveFile(file, m[2])
    if (t) targets.add(t)
  }
  return targets
}

/** The import graph of electron/'s files, and its strongly connected components of more than one file (Tarjan). */
export function importCycles() {
  const graph = new Map()
  const indexes = new Map()
  for (const file of sourceFilesOf(join(ROOT, 'electron'))) {
    const targets = new Set()
    for (const t of importedFiles(file, indexes)) if (t.startsWith(join(ROOT, 'electron'))) targets.add(t)
    graph.set(file, targets)
  }
  let next = 0
  const stack = []
  const onStack = new Set()
  const index = new Map()
  const low = new Map()
  const cycles = []
  const visit = (v) => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v), low.get(w)))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)))
    }
    if (low.get(v) !== index.get(v)) return
    const component = []
    let w
    do {
      w = stack.pop()
      onStack.delete(w)
      component.push(posix(relative(ROOT, w)).replace(/\.ts$/, ''))
    } while (w !== v)
    if (component.length > 1) cycles.push(component.sort().join(' '))
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return cycles.sort()
}

/** Every upward import in electron/ (tests left out), as "from → to", whether listed or not. */
export function upwardImports() {
  const found = []
  for (const file of sourceFilesOf(join(ROOT, 'electron'))) {
    const from = posix(relative(ROOT, file)).replace(/\.ts$/, '')
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORTED)) {
      const to = posix(relative(ROOT, resolve(dirname(file), m[2]))).replace(/\.(ts|mts|js|mjs)$/, '')
      const a = rankOf(from)
      const b = rankOf(to)
      if (a !== null && b !== null && b > a) found.push(`${from} → ${to}`)
    }
  }
  return [...new Set(found)].sort()
}

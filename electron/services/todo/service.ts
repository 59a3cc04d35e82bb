/**
 * The to-do list of the signed-in person (README.md): what awaits them, from the ledger as it is,
 * for their role. Nothing is stored: the list is worked out at each reading (a few indexed reads),
 * and the screens read it again when the ledger changes (services/changes).
 */
import type { ClaimDeadlineNotice } from '../../contract/claims-types'
import type { Role } from '../../contract/define'
import type { ImportRecord } from '../../contract/types'
import type { TodoKind, TodoList, TodoTask } from '../../contract/todo-types'
import type { Db } from '../../ledger/db'
import type { AwaitedClaim, AwaitedStep, ClaimsService } from '../claims'
import type { Actor } from '../common'
import type { ImporterService } from '../extensions'
import { ceremonyTasks } from './ceremonies'

export interface TodoDeps {
  db: Db
  claims: Pick<ClaimsService, 'awaiting' | 'nearingDeadline'>
  importer: Pick<ImporterService, 'history'>
}

export interface TodoService {
  list(actor: Actor): TodoList
}

const STEP_KIND: Record<AwaitedStep, TodoKind> = {
  verify: 'claim-verify',
  approve: 'claim-approve',
  signOff: 'claim-sign-off',
  pay: 'claim-pay',
}

/** Who is told of the claims nearing their deadline: who may still move them (verify, approve, pay). */
const DEADLINE_ROLES: readonly Role[] = ['admin', 'support', 'manager']
/** Who fixes a refused import: who may import (sales:import's access). */
const IMPORT_ROLES: readonly Role[] = ['admin', 'operator']
/** Imports read back to find the refusals since the last success. */
const IMPORTS_READ = 20

function claimTask(a: AwaitedClaim, daysLeft: Map<string, number>): TodoTask {
  const c = a.claim
  return {
    kind: STEP_KIND[a.step],
    subject: c.serial,
    emission: c.emission,
    since: c.soldAt,
    prizeCents: c.prizeCents,
    daysLeft: daysLeft.get(c.serial) ?? null,
    detail: null,
  }
}

function deadlineTask(n: ClaimDeadlineNotice): TodoTask {
  const c = n.claim
  return {
    kind: 'claim-deadline',
    subject: c.serial,
    emission: c.emission,
    since: n.deadline,
    prizeCents: c.prizeCents,
    daysLeft: n.daysLeft,
    detail: null,
  }
}

/** The claims awaiting the person's step, and the others near their deadline that they may move. */
function claimTasks(deps: TodoDeps, actor: Actor): { tasks: TodoTask[]; more: boolean } {
  const awaited = deps.claims.awaiting(actor)
  if (!DEADLINE_ROLES.includes(actor.role))
    return { tasks: awaited.items.map((a) => claimTask(a, new Map())), more: awaited.more }
  const notices = deps.claims.nearingDeadline()
  const daysLeft = new Map(notices.map((n) => [n.claim.serial, n.daysLeft]))
  const mine = awaited.items.map((a) => claimTask(a, daysLeft))
  const listed = new Set(mine.map((t) => t.subject))
  const others = notices.filter((n) => !listed.has(n.claim.serial)).map(deadlineTask)
  return { tasks: [...mine, ...others], more: awaited.more }
}

function importTask(r: ImportRecord): TodoTask {
  return {
    kind: 'import-refused',
    subject: String(r.seq),
    emission: null,
    since: r.at,
    prizeCents: null,
    daysLeft: null,
    detail: r.fileName,
  }
}

/** The imports refused since the last one that went in (latest first): a feed to fix and send again. */
function importTasks(deps: TodoDeps, actor: Actor): TodoTask[] {
  if (!IMPORT_ROLES.includes(actor.role)) return []
  const recent = deps.importer.history({ page: 1, pageSize: IMPORTS_READ }).items
  const lastSuccess = recent.findIndex((r) => r.result !== 'refused')
  return recent.slice(0, lastSuccess < 0 ? recent.length : lastSuccess).map(importTask)
}

/** Deadlines first (nearest first), then the rest in the order each source gives. */
function urgentFirst(tasks: TodoTask[]): TodoTask[] {
  const urgency = (t: TodoTask) => t.daysLeft ?? Number.POSITIVE_INFINITY
  return tasks
    .map((t, i) => ({ t, i }))
    .sort((a, b) => urgency(a.t) - urgency(b.t) || a.i - b.i)
    .map((x) => x.t)
}

export function todoList(deps: TodoDeps, actor: Actor): TodoList {
  const claims = claimTasks(deps, actor)
  const tasks = urgentFirst([...ceremonyTasks(deps.db, actor), ...claims.tasks, ...importTasks(deps, actor)])
  return { tasks, count: tasks.length, more: claims.more }
}

export function createTodoService(deps: TodoDeps): TodoService {
  return { list: (actor) => todoList(deps, actor) }
}

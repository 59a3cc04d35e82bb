import type { RouteLocationRaw } from 'vue-router'
import type { TodoKind, TodoTask } from '../../../../electron/contract/todo-types'

type Translate = (key: string, params?: Record<string, unknown>, plural?: number) => string

export type TodoGroup = 'claims' | 'ceremonies' | 'imports'

export function groupOf(kind: TodoKind): TodoGroup {
  if (kind.startsWith('claim-')) return 'claims'
  if (kind.startsWith('ceremony-')) return 'ceremonies'
  return 'imports'
}

/** Where a task is done: the claim, the emission's page (its key ceremony), the emissions (their import history). */
export function linkOf(task: TodoTask): RouteLocationRaw {
  const group = groupOf(task.kind)
  if (group === 'claims') return { name: 'claim', params: { serial: task.subject } }
  if (group === 'ceremonies') return { name: 'emission', params: { emission: task.subject } }
  return { name: 'emissions' }
}

/** What the task is about, in words: the unit and its prize, the emission and who opened it, the file. */
export function subjectOf(task: TodoTask, t: Translate, money: (cents: number) => string): string {
  const group = groupOf(task.kind)
  if (group === 'claims') return t('todo.claim', { serial: task.subject, prize: money(task.prizeCents ?? 0) })
  if (group === 'ceremonies') {
    const who = t(task.kind === 'ceremony-commit' ? 'todo.openedBy' : 'todo.committedBy', { name: task.detail ?? '' })
    return `${t('todo.ceremonyOf', { emission: task.subject })}, ${who}`
  }
  return t('todo.importOf', { file: task.detail ?? t('todo.unnamedFile') })
}

/** The tasks by group, in the order of the groups, each group keeping the list's order (urgent first). */
export function grouped(tasks: readonly TodoTask[]): { group: TodoGroup; tasks: TodoTask[] }[] {
  const order: TodoGroup[] = ['claims', 'ceremonies', 'imports']
  return order
    .map((group) => ({ group, tasks: tasks.filter((x) => groupOf(x.kind) === group) }))
    .filter((g) => g.tasks.length > 0)
}

/** The to-do list's channel: the caller's own tasks. */
import { actorOf, type HandlersOf } from '../common'
import type { TodoService } from './service'

export function todoHandlers(s: { todo: TodoService }): HandlersOf<'todo'> {
  return { 'todo:list': (_a, ctx) => s.todo.list(actorOf(ctx)) }
}

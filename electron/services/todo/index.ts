/**
 * The to-do list of the signed-in person (README.md beside this file): the only entrance from
 * outside the folder.
 */
export { createTodoService, todoList, type TodoDeps, type TodoService } from './service'
export { CUSTODIANS } from './ceremonies'
export { todoHandlers } from './handlers'

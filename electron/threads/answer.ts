/**
 * A task's worker thread answers once; the task is over when the thread has exited, not when it
 * answered: until then it may still hold its ledger connection and the files beside the ledger
 * (a backend closed at once after the answer, or a folder removed, would race it).
 */
import type { Worker } from 'node:worker_threads'
import { AppError } from '../contract/errors'

/** What a message says: the task's result, its failure, or nothing final (progress). */
export type Reading<R> = { result: R } | { failure: Error } | null

/**
 * The worker's first answer, settled once it has exited. `read` reads each message; an exit with
 * no answer is a failure that names `what` and the exit code.
 */
export function answerAtExit<M, R>(worker: Worker, what: string, read: (message: M) => Reading<R>): Promise<R> {
  return new Promise((resolve, reject) => {
    let answer: Reading<R> = null
    const answered = (a: Reading<R>) => {
      if (answer === null) answer = a
    }
    worker.on('message', (m: M) => answered(read(m)))
    worker.on('error', (e) => answered({ failure: new AppError('INTERNAL', `${what} failed: ${e.message}`) }))
    worker.on('exit', (code) => {
      if (answer === null) reject(new AppError('INTERNAL', `${what} stopped (exit code ${code})`))
      else if ('failure' in answer) reject(answer.failure)
      else resolve(answer.result)
    })
  })
}

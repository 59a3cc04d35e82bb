/** A task's thread is over when it has exited, whatever it answered before. */
import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { answerAtExit, type Reading } from './answer'

/** A thread running `body` (CommonJS, `post` and `later` at hand). */
function thread(body: string): Worker {
  const prelude = `const { parentPort } = require('node:worker_threads'); const post = (m) => parentPort.postMessage(m);`
  return new Worker(prelude + body, { eval: true })
}

type Message = { type: 'progress' } | { type: 'done'; value: number } | { type: 'error'; text: string }
const read =
  (progress: number[] = []) =>
  (m: Message): Reading<number> => {
    if (m.type === 'progress') progress.push(1)
    else if (m.type === 'done') return { result: m.value }
    else return { failure: new Error(m.text) }
    return null
  }

describe('a worker thread’s answer', () => {
  it('is given once the thread has exited, not when it answered', async () => {
    const w = thread(`post({ type: 'progress' }); post({ type: 'done', value: 7 }); setTimeout(() => {}, 300)`)
    let exited = false
    w.on('exit', () => (exited = true))
    const progress: number[] = []
    expect(await answerAtExit(w, 'the test worker', read(progress))).toBe(7)
    expect(exited).toBe(true)
    expect(progress).toEqual([1])
  })

  it('keeps the first answer, and gives a failure as it was posted', async () => {
    const w = thread(`post({ type: 'error', text: 'no such emission' }); post({ type: 'done', value: 1 })`)
    await expect(answerAtExit(w, 'the test worker', read())).rejects.toThrow('no such emission')
  })

  it('names the thread and its exit code when it stopped without an answer', async () => {
    const w = thread(`process.exit(3)`)
    await expect(answerAtExit(w, 'the test worker', read())).rejects.toThrow('the test worker stopped (exit code 3)')
  })

  it('says a thread that threw failed, and why', async () => {
    const w = thread(`throw new Error('out of memory')`)
    await expect(answerAtExit(w, 'the test worker', read())).rejects.toThrow('the test worker failed: out of memory')
  })
})

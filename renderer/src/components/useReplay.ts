import { computed, onBeforeUnmount, ref, watch, type Ref } from 'vue'
import { playDuration, visibleAt, type Play } from '../../../game-core/play'

/** The covered ticket stays on screen a moment before the first reveal, and the last reveal a moment before the end. */
export const LEAD_IN_MS = 400
export const TAIL_MS = 600
export const SPEEDS = [0.5, 1, 2, 4] as const

/**
 * The replay clock. Time runs on requestAnimationFrame at the play's own pace times `speed`;
 * what is shown at any moment comes from game-core's visibleAt, so stepping, scrubbing and
 * playing always agree with the recorded events. Each play starts at the beginning, at 1×.
 */
export function useReplay(play: Ref<Play>, zones: Ref<{ winningCells: number; yoursCells: number }>) {
  const clock = ref(0)
  const playing = ref(false)
  const speed = ref<number>(1)

  const duration = computed(() => playDuration(play.value))
  const total = computed(() => LEAD_IN_MS + duration.value + TAIL_MS)
  /** Milliseconds into the original play (negative during the lead-in). */
  const time = computed(() => clock.value - LEAD_IN_MS)
  const visibility = computed(() => visibleAt(play.value, zones.value, time.value))
  const eventsShown = computed(() => visibility.value.eventsShown)
  const finished = computed(
    () => eventsShown.value === play.value.events.length && clock.value >= LEAD_IN_MS + duration.value,
  )

  let raf: number | null = null
  let last: number | null = null

  function frame(ts: number) {
    raf = null
    if (!playing.value) return
    if (last !== null) clock.value = Math.min(total.value, clock.value + (ts - last) * speed.value)
    last = ts
    if (clock.value >= total.value) {
      playing.value = false
      return
    }
    raf = requestAnimationFrame(frame)
  }

  function start() {
    if (clock.value >= total.value) clock.value = 0
    playing.value = true
    last = null
    if (raf === null) raf = requestAnimationFrame(frame)
  }

  function pause() {
    playing.value = false
    if (raf !== null) cancelAnimationFrame(raf)
    raf = null
    last = null
  }

  const toggle = () => (playing.value ? pause() : start())

  function seek(c: number) {
    clock.value = Math.max(0, Math.min(total.value, c))
    last = null
  }

  /** The next reveal (all reveals recorded at the same millisecond come together). */
  function stepForward() {
    pause()
    const events = play.value.events
    const k = eventsShown.value
    seek(k < events.length ? LEAD_IN_MS + events[k].t : total.value)
  }

  function stepBack() {
    pause()
    const events = play.value.events
    const k = eventsShown.value
    if (k === 0) return seek(0)
    const current = events[k - 1].t
    // The latest moment with fewer reveals than now: the last event strictly before this one.
    let j = k - 1
    while (j > 0 && events[j - 1].t === current) j--
    seek(j === 0 ? 0 : LEAD_IN_MS + events[j - 1].t)
  }

  function restart() {
    pause()
    seek(0)
  }

  // Another play (the next ticket's) starts afresh: covered, at 1×, whatever the last one was left at.
  watch(play, () => {
    restart()
    speed.value = 1
  })

  onBeforeUnmount(pause)

  return {
    clock,
    playing,
    speed,
    duration,
    total,
    time,
    visibility,
    eventsShown,
    finished,
    start,
    pause,
    toggle,
    seek,
    stepForward,
    stepBack,
    restart,
  }
}
